import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { E2eParams, PixList, PixListQuery, PixView, RefundParams, RefundRequest, RefundView } from './schemas.ts';
import { REFUND_INVALID, listPix, readPix, readRefund, requestRefund, type RefundGuard } from './service.ts';

const tags = ['Pix recebidos'];
const read = { scope: 'pix.read', invalidRequest: 'PixConsultaInvalida' } as const;

/** A refund request's route options, the Bacen path's and the provider's alike. */
const refundRoute = (summary: string) => ({
  config: { scope: 'pix.write', rateLimited: true, invalidRequest: REFUND_INVALID } as const,
  schema: { tags, summary, params: RefundParams, body: RefundRequest, response: { 201: RefundView } },
});

type RefundRequestOf = FastifyRequest<{ Params: Static<typeof RefundParams>; Body: RefundRequest }>;

/** One refund engine behind both paths: the same refund, found by either path, idempotent per id. */
const refundHandler =
  (ctx: AppContext, refundGuards: RefundGuard[]) => async (request: RefundRequestOf, reply: FastifyReply) => {
    const { e2eid, id } = request.params;
    const result = await ctx.db.tx((sql) =>
      requestRefund(sql, callerOf(ctx, request), e2eid, id, request.body, refundGuards),
    );
    return reply.status(201).send(result.view);
  };

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
      refundRoute('Request a refund (idempotent per id); it settles asynchronously'),
      refundHandler(ctx, refundGuards),
    );

    app.get(
      '/v2/pix/:e2eid/devolucao/:id',
      { config: read, schema: { tags, summary: 'Read a refund', params: RefundParams, response: { 200: RefundView } } },
      async (request) => readRefund(ctx.db, callerOf(ctx, request), request.params.e2eid, request.params.id),
    );
  };

/**
 * `PUT /v2/gn/pix/:e2eid/devolucao/:id`, the provider's path of the refund of a received Pix (the interface's
 * limits list names it): the body, answer and engine of `PUT /v2/pix/:e2eid/devolucao/:id`; registered in the
 * `/v2/gn` family beside the send, so its errors are `{nome, mensagem}` as the SDK reads them there.
 */
export const providerRefundRoutes =
  (ctx: AppContext, refundGuards: RefundGuard[] = []): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.put(
      '/v2/gn/pix/:e2eid/devolucao/:id',
      refundRoute('Request a refund of a received Pix (the provider’s path; same refund as /v2/pix/…/devolucao)'),
      refundHandler(ctx, refundGuards),
    );
  };
