import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { RevisaoQuery, TxidParams } from '../shared/schemas.ts';
import { CobCreate, CobList, CobListQuery, CobPatch, CobView } from './schemas.ts';
import { COB_INVALID, createCob, listCobs, readCob, reviseCob } from './service.ts';

const write = { scope: 'cob.write', invalidRequest: COB_INVALID, propertyRoot: 'cob' } as const;
const read = { scope: 'cob.read', invalidRequest: 'CobConsultaInvalida' } as const;
const tags = ['Cob'];

export const cobRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/v2/cob',
      {
        config: { ...write, rateLimited: true },
        schema: {
          tags,
          summary: 'Create an immediate charge (txid assigned)',
          body: CobCreate,
          response: { 201: CobView },
        },
      },
      async (request, reply) => {
        const view = await createCob(ctx.db, callerOf(ctx, request), undefined, request.body);
        return reply.status(201).send(view);
      },
    );

    app.put(
      '/v2/cob/:txid',
      {
        config: { ...write, rateLimited: true },
        schema: {
          tags,
          summary: "Create an immediate charge with the caller's txid",
          params: TxidParams,
          body: CobCreate,
          response: { 201: CobView },
        },
      },
      async (request, reply) => {
        const view = await createCob(ctx.db, callerOf(ctx, request), request.params.txid, request.body);
        return reply.status(201).send(view);
      },
    );

    app.patch(
      '/v2/cob/:txid',
      {
        config: write,
        schema: {
          tags,
          summary: 'Revise an immediate charge (revisao + 1)',
          params: TxidParams,
          body: CobPatch,
          response: { 200: CobView },
        },
      },
      async (request) => ctx.db.tx((sql) => reviseCob(sql, callerOf(ctx, request), request.params.txid, request.body)),
    );

    app.get(
      '/v2/cob/:txid',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read an immediate charge (optionally one revision)',
          params: TxidParams,
          querystring: RevisaoQuery,
          response: { 200: CobView },
        },
      },
      async (request) => readCob(ctx.db, callerOf(ctx, request), request.params.txid, request.query.revisao),
    );

    app.get(
      '/v2/cob',
      {
        config: read,
        schema: { tags, summary: 'List immediate charges', querystring: CobListQuery, response: { 200: CobList } },
      },
      async (request) => listCobs(ctx.db, callerOf(ctx, request), request.query),
    );
  };
