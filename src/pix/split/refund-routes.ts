/**
 * `PUT /v2/gn/split/pix/:e2eid/devolucao/:id` (the SDK's `pixSplitDevolution`): the refund of a Pix divided by a
 * split, registered beside the provider's refund path, so its errors are `{nome, mensagem}` as the SDK reads them.
 * The SDK documents its parameter as `e2eId` while the path says `:e2eid`, so it sends the literal `:e2eid` and the
 * id as the query's `e2eId`: both spellings are taken.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { END_TO_END_ID_PATTERN } from '../../platform/institution.ts';
import { invalid } from '../../platform/errors.ts';
import { callerOf } from '../shared/caller.ts';
import { RefundParams, RefundRequest, RefundView } from '../received/schemas.ts';
import { REFUND_INVALID } from '../received/service.ts';
import { requestSplitRefund } from './refunds.ts';

const SDK_PLACEHOLDER = ':e2eid';

export const splitRefundRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.put(
      '/v2/gn/split/pix/:e2eid/devolucao/:id',
      {
        config: { scope: 'pix.write', rateLimited: true, invalidRequest: REFUND_INVALID },
        schema: {
          tags: ['Split de pagamento'],
          summary:
            'Refund a Pix divided by a split: each beneficiary gives back its part, in proportion to the division (idempotent per id)',
          params: Type.Object({
            e2eid: Type.Union([RefundParams.properties.e2eid, Type.Literal(SDK_PLACEHOLDER)]),
            id: RefundParams.properties.id,
          }),
          querystring: Type.Object({ e2eId: Type.Optional(Type.String({ pattern: END_TO_END_ID_PATTERN })) }),
          body: RefundRequest,
          response: { 201: RefundView },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const e2eid = request.params.e2eid === SDK_PLACEHOLDER ? request.query.e2eId : request.params.e2eid;
        if (!e2eid)
          throw invalid(REFUND_INVALID, 'Informe o endToEndId do Pix a devolver.', [
            { property: 'e2eid', reason: 'ausente.' },
          ]);
        const result = await ctx.db.tx((sql) =>
          requestSplitRefund(sql, callerOf(ctx, request), e2eid, id, request.body),
        );
        return reply.status(201).send(result.view);
      },
    );
  };
