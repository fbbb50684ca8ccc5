import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { LocRecCompleta, LocRecCreate, LocRecIdParams, LocRecList, LocRecListQuery } from './schemas.ts';
import {
  LOCREC_INVALID,
  LOCREC_QUERY_INVALID,
  createLocRec,
  listLocRecs,
  readLocRec,
  unlinkLocRec,
} from './service.ts';

const write = { scope: 'payloadlocationrec.write', invalidRequest: LOCREC_INVALID, propertyRoot: 'loc' } as const;
const read = { scope: 'payloadlocationrec.read', invalidRequest: LOCREC_QUERY_INVALID } as const;
const tags = ['LocRec'];

export const locRecRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/v2/locrec',
      {
        config: write,
        // The body is optional: no body is an empty one.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags,
          summary: 'Create a location for a recurrence',
          body: LocRecCreate,
          response: { 201: LocRecCompleta },
        },
      },
      async (request, reply) => reply.status(201).send(await createLocRec(ctx.db, callerOf(ctx, request))),
    );

    app.get(
      '/v2/locrec',
      {
        config: read,
        schema: {
          tags,
          summary: 'List locations of recurrences',
          querystring: LocRecListQuery,
          response: { 200: LocRecList },
        },
      },
      async (request) => listLocRecs(ctx.db, callerOf(ctx, request), request.query),
    );

    app.get(
      '/v2/locrec/:id',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read a location of a recurrence',
          params: LocRecIdParams,
          response: { 200: LocRecCompleta },
        },
      },
      async (request) => readLocRec(ctx.db, callerOf(ctx, request), request.params.id),
    );

    app.delete(
      '/v2/locrec/:id/idRec',
      {
        config: write,
        schema: {
          tags,
          summary: 'Unlink the recurrence served by a location',
          params: LocRecIdParams,
          response: { 200: LocRecCompleta },
        },
      },
      async (request) => ctx.db.tx((sql) => unlinkLocRec(sql, callerOf(ctx, request), request.params.id)),
    );
  };
