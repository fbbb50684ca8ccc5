import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { RevisaoQuery, TxidParams } from '../shared/schemas.ts';
import { CobVCreate, CobVList, CobVListQuery, CobVPatch, CobVView } from './schemas.ts';
import { COBV_INVALID, COBV_QUERY_INVALID, createCobV, listCobVs, readCobV, reviseCobV } from './service.ts';

// The interface lists cob.write for writing due charges (Bacen says cobv.write); reads use cobv.read.
const write = { scope: 'cob.write', invalidRequest: COBV_INVALID, propertyRoot: 'cobv' } as const;
const read = { scope: 'cobv.read', invalidRequest: COBV_QUERY_INVALID } as const;
const tags = ['CobV'];

export const cobvRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.put(
      '/v2/cobv/:txid',
      {
        config: { ...write, rateLimited: true },
        schema: {
          tags,
          summary: 'Create a due charge',
          params: TxidParams,
          body: CobVCreate,
          response: { 201: CobVView },
        },
      },
      async (request, reply) => {
        const view = await createCobV(ctx.db, callerOf(ctx, request), request.params.txid, request.body);
        return reply.status(201).send(view);
      },
    );

    app.patch(
      '/v2/cobv/:txid',
      {
        config: write,
        schema: {
          tags,
          summary: 'Revise a due charge (revisao + 1)',
          params: TxidParams,
          body: CobVPatch,
          response: { 200: CobVView },
        },
      },
      async (request) => ctx.db.tx((sql) => reviseCobV(sql, callerOf(ctx, request), request.params.txid, request.body)),
    );

    app.get(
      '/v2/cobv/:txid',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read a due charge (optionally one revision)',
          params: TxidParams,
          querystring: RevisaoQuery,
          response: { 200: CobVView },
        },
      },
      async (request) => readCobV(ctx.db, callerOf(ctx, request), request.params.txid, request.query.revisao),
    );

    app.get(
      '/v2/cobv',
      {
        config: read,
        schema: { tags, summary: 'List due charges', querystring: CobVListQuery, response: { 200: CobVList } },
      },
      async (request) => listCobVs(ctx.db, callerOf(ctx, request), request.query),
    );
  };
