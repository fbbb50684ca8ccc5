import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { RecCompleta, RecCreate, RecIdParams, RecList, RecListQuery, RecPatch, RecReadQuery } from './schemas.ts';
import { REC_INVALID, REC_QUERY_INVALID, createRec, listRecsView, patchRec, readRec } from './service.ts';

const write = { scope: 'rec.write', invalidRequest: REC_INVALID, propertyRoot: 'rec' } as const;
const read = { scope: 'rec.read', invalidRequest: REC_QUERY_INVALID } as const;
const tags = ['Rec'];

export const recRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/v2/rec',
      {
        config: { ...write, rateLimited: true },
        schema: {
          tags,
          summary: 'Create a recurrence (automatic Pix)',
          body: RecCreate,
          response: { 201: RecCompleta },
        },
      },
      async (request, reply) => {
        const view = await ctx.db.tx((sql) => createRec(sql, callerOf(ctx, request), request.body));
        return reply.status(201).send(view);
      },
    );

    app.get(
      '/v2/rec',
      {
        config: read,
        schema: { tags, summary: 'List recurrences', querystring: RecListQuery, response: { 200: RecList } },
      },
      async (request) => listRecsView(ctx.db, callerOf(ctx, request), request.query),
    );

    app.get(
      '/v2/rec/:idRec',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read a recurrence (optionally with the txid of a charge of its journey)',
          params: RecIdParams,
          querystring: RecReadQuery,
          response: { 200: RecCompleta },
        },
      },
      async (request) => readRec(ctx.db, callerOf(ctx, request), request.params.idRec, request.query.txid),
    );

    app.patch(
      '/v2/rec/:idRec',
      {
        config: write,
        schema: {
          tags,
          summary: 'Revise or cancel a recurrence',
          params: RecIdParams,
          body: RecPatch,
          response: { 200: RecCompleta },
        },
      },
      async (request) => ctx.db.tx((sql) => patchRec(sql, callerOf(ctx, request), request.params.idRec, request.body)),
    );
  };
