import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import {
  CobrCompleta,
  CobrCreate,
  CobrList,
  CobrListQuery,
  CobrPatch,
  CobrTxidParams,
  RetryParams,
} from './schemas.ts';
import {
  COBR_INVALID,
  COBR_QUERY_INVALID,
  cancelCobr,
  createCobr,
  listCobrsView,
  readCobr,
  retryCobr,
} from './service.ts';

const write = { scope: 'cobr.write', invalidRequest: COBR_INVALID, propertyRoot: 'cobr' } as const;
const read = { scope: 'cobr.read', invalidRequest: COBR_QUERY_INVALID } as const;
const tags = ['CobR'];

export const cobrRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.put(
      '/v2/cobr/:txid',
      {
        config: { ...write, rateLimited: true },
        schema: {
          tags,
          summary: 'Create a recurring charge with a txid of your own',
          params: CobrTxidParams,
          body: CobrCreate,
          response: { 201: CobrCompleta },
        },
      },
      async (request, reply) => {
        const view = await ctx.db.tx((sql) =>
          createCobr(sql, callerOf(ctx, request), request.params.txid, request.body),
        );
        return reply.status(201).send(view);
      },
    );

    app.post(
      '/v2/cobr',
      {
        config: { ...write, rateLimited: true },
        schema: { tags, summary: 'Create a recurring charge', body: CobrCreate, response: { 201: CobrCompleta } },
      },
      async (request, reply) => {
        const view = await ctx.db.tx((sql) => createCobr(sql, callerOf(ctx, request), undefined, request.body));
        return reply.status(201).send(view);
      },
    );

    app.get(
      '/v2/cobr/:txid',
      {
        config: read,
        schema: { tags, summary: 'Read a recurring charge', params: CobrTxidParams, response: { 200: CobrCompleta } },
      },
      async (request) => readCobr(ctx.db, callerOf(ctx, request), request.params.txid),
    );

    app.patch(
      '/v2/cobr/:txid',
      {
        config: write,
        schema: {
          tags,
          summary: 'Cancel a recurring charge (before the date of its first attempt)',
          params: CobrTxidParams,
          body: CobrPatch,
          response: { 200: CobrCompleta },
        },
      },
      async (request) => ctx.db.tx((sql) => cancelCobr(sql, callerOf(ctx, request), request.params.txid)),
    );

    app.post(
      '/v2/cobr/:txid/retentativa/:data',
      {
        config: { ...write, rateLimited: true },
        schema: {
          tags,
          summary: 'Ask for a new settlement attempt after a failed one (PERMITE_3R_7D)',
          params: RetryParams,
          // 201, as Bacen declares (the interface is silent).
          response: { 201: CobrCompleta },
        },
      },
      async (request, reply) => {
        const view = await ctx.db.tx((sql) =>
          retryCobr(sql, callerOf(ctx, request), request.params.txid, request.params.data),
        );
        return reply.status(201).send(view);
      },
    );

    app.get(
      '/v2/cobr',
      {
        config: read,
        schema: { tags, summary: 'List recurring charges', querystring: CobrListQuery, response: { 200: CobrList } },
      },
      async (request) => listCobrsView(ctx.db, callerOf(ctx, request), request.query),
    );
  };
