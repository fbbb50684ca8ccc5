/**
 * The contested participant's side of a special refund request (docs/participants.md): a person testing a
 * participant integration closes their own request as the other institution would, accepting it (the money comes
 * back through the refund paths of src/pix/dict/refunds.ts) or rejecting it.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { RefundClose, RefundView } from '../pix/dict/schemas.ts';
import { closeRefundRequest, REFUND_INVALID } from '../pix/dict/refunds.ts';

export const sandboxDictRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/sandbox/dict/refunds/:id/close',
      {
        config: { invalidRequest: REFUND_INVALID },
        schema: {
          tags: ['Sandbox'],
          summary: "Close one of the caller's special refund requests as the contested participant (sandbox)",
          params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
          body: RefundClose,
          response: { 200: RefundView },
        },
      },
      async (request) =>
        closeRefundRequest(ctx.db, ctx.clock, request.principal.accountId, request.params.id, request.body),
    );
  };
