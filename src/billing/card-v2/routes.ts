/** POST /v2/charge/card: the one-step card charge with the v2 body; answered without the `{code, data}` envelope. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { billingCallerOf } from '../shared/caller.ts';
import { oneStepCharge } from '../charges/service.ts';
import type { CardPaymentRecord } from '../charges/store.ts';
import { CardChargeV2, CardChargeV2Result } from './schemas.ts';

export const billingCardV2Routes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/v2/charge/card',
      {
        config: { scope: 'charge.write' },
        schema: {
          tags: ['Billing: charges'],
          summary: 'Create and pay a card charge at once (v2 body)',
          body: CardChargeV2,
          response: { 200: CardChargeV2Result },
        },
      },
      async (request) => {
        const { items, shippings, metadata, tds_info: _tds, ...card } = request.body;
        const charge = await ctx.db.tx((sql) =>
          oneStepCharge(sql, billingCallerOf(ctx, request), {
            items,
            shippings,
            metadata,
            payment: { credit_card: card },
          }),
        );
        const paid = charge.payment as CardPaymentRecord;
        return {
          charge_id: charge.id,
          status: charge.status,
          total: charge.total_cents,
          installments: paid.installments,
          installment_value: paid.installment_value,
          ...(charge.status === 'unpaid' && {
            refusal: { reason: charge.refusal_reason!, retry: charge.refusal_retry! },
          }),
        };
      },
    );
  };
