import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { E2eParams, PixList, PixListQuery, PixView, RefundParams, RefundRequest, RefundView } from './schemas.ts';
import { REFUND_INVALID, listPix, readPix, readRefund, requestRefund, type RefundGuard } from './service.ts';

const tags = ['Pix recebidos'];
const read = { scope: 'pix.read', invalidRequest: 'PixConsultaInvalida' } as const;

export const receivedPixRoutes =
  (ctx: AppContext, refundGuards: RefundGuard[] = []): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/v2/pix/:e2eid',
      { config: read, schema: { tags, summary: 'Read a received Pix', params: E2eParams, response: { 200: PixView } } },
      async (request) => readPix(ctx.db, callerOf(ctx, request), request.params.e2eid),
    );

    app.get(
      '/v2/pix',
      {
        config: read,
        schema: { tags, summary: 'List received Pix', querystring: PixListQuery, response: { 200: PixList } },
      },
      // The body comes as JSON text, already in the schema's shape: sent as it is, not serialised again.
      // (The plain reply type: the typed one only takes the schema's object.)
      async (request, reply) =>
        (reply as FastifyReply)
          .type('application/json; charset=utf-8')
          .send(await listPix(ctx.db, callerOf(ctx, request), request.query)),
    );

    app.put(
      '/v2/pix/:e2eid/devolucao/:id',
      {
        config: { scope: 'pix.write', rateLimited: true, invalidRequest: REFUND_INVALID },
        schema: {
          tags,
          summary: 'Request a refund (idempotent per id); it settles asynchronously',
          params: RefundParams,
          body: RefundRequest,
          response: { 201: RefundView },
        },
      },
      async (request, reply) => {
        const result = await ctx.db.tx((sql) =>
          requestRefund(
            sql,
            callerOf(ctx, request),
            request.params.e2eid,
            request.params.id,
            request.body,
            refundGuards,
          ),
        );
        return reply.status(201).send(result.view);
      },
    );

    app.get(
      '/v2/pix/:e2eid/devolucao/:id',
      { config: read, schema: { tags, summary: 'Read a refund', params: RefundParams, response: { 200: RefundView } } },
      async (request) => readRefund(ctx.db, callerOf(ctx, request), request.params.e2eid, request.params.id),
    );
  };
