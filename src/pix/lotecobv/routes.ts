import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { LoteList, LoteListQuery, LoteParams, LotePatch, LotePut, LoteView } from './schemas.ts';
import {
  LOTE_INVALID,
  LOTE_QUERY_INVALID,
  batchId,
  listBatchPage,
  patchBatch,
  putBatch,
  readBatch,
} from './service.ts';

// The interface lists the two scopes swapped "as listed"; we follow Bacen (docs/decisions.md).
const write = { scope: 'lotecobv.write', invalidRequest: LOTE_INVALID, propertyRoot: 'loteCobV' } as const;
const read = { scope: 'lotecobv.read', invalidRequest: LOTE_QUERY_INVALID } as const;
const tags = ['LoteCobV'];
const accepted = {
  202: {
    type: 'null',
    description: 'Accepted: the batch job decides each item (CRIADA or NEGADA); read the batch to follow it.',
  },
};

export const lotecobvRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.put(
      '/v2/lotecobv/:id',
      {
        config: { ...write, rateLimited: true },
        schema: {
          tags,
          summary: 'Create a batch of due charges, or re-send its creation requests',
          params: LoteParams,
          body: LotePut,
          response: accepted,
        },
      },
      async (request, reply) => {
        await ctx.db.tx((sql) => putBatch(sql, callerOf(ctx, request), batchId(request.params.id), request.body));
        return reply.status(202).send();
      },
    );

    app.patch(
      '/v2/lotecobv/:id',
      {
        config: write,
        schema: {
          tags,
          summary: "Revise some of a batch's due charges",
          params: LoteParams,
          body: LotePatch,
          response: accepted,
        },
      },
      async (request, reply) => {
        await ctx.db.tx((sql) => patchBatch(sql, callerOf(ctx, request), batchId(request.params.id), request.body));
        return reply.status(202).send();
      },
    );

    app.get(
      '/v2/lotecobv/:id',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read a batch and the outcome of each item',
          params: LoteParams,
          response: { 200: LoteView },
        },
      },
      async (request) => readBatch(ctx.db, callerOf(ctx, request), batchId(request.params.id)),
    );

    app.get(
      '/v2/lotecobv',
      {
        config: read,
        schema: {
          tags,
          summary: 'List batches of due charges',
          querystring: LoteListQuery,
          response: { 200: LoteList },
        },
      },
      async (request) => listBatchPage(ctx.db, callerOf(ctx, request), request.query),
    );
  };
