/** Card/billing charge endpoints (billing family: billing token, `{code, error, error_description}` errors). */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { billingCallerOf } from '../shared/caller.ts';
import {
  AnyPayment,
  CardPayment,
  ChargeCreate,
  ChargeCreated,
  ChargeDetail,
  ChargeIdParams,
  Done,
  MetadataUpdate,
  OneStepCreate,
  PaymentResult,
  RefundBody,
  RefundResult,
} from './schemas.ts';
import {
  cancelCharge,
  chargeDetail,
  createCharge,
  createdView,
  oneStepCharge,
  payCharge,
  paymentView,
  refundCharge,
  retryCharge,
  answerWaitingPayment,
  settleNow,
  updateMetadata,
  type BillingCaller,
} from './service.ts';

const tags = ['Billing: charges'];
const write = { scope: 'charge.write' } as const;
const read = { scope: 'charge.read' } as const;

export const billingChargeRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const caller = (request: FastifyRequest): BillingCaller => billingCallerOf(ctx, request);
    const id = { params: ChargeIdParams };

    app.post(
      '/v1/charge',
      {
        config: write,
        schema: { tags, summary: 'Create a charge (status new)', body: ChargeCreate, response: { 200: ChargeCreated } },
      },
      async (request) => {
        const c = caller(request);
        return { code: 200, data: createdView(c, await ctx.db.tx((sql) => createCharge(sql, c, request.body))) };
      },
    );

    app.post(
      '/v1/charge/one-step',
      {
        config: write,
        schema: {
          tags,
          summary: 'Create and pay by card at once',
          body: OneStepCreate,
          response: { 200: PaymentResult },
        },
      },
      async (request) => {
        const c = caller(request);
        return {
          code: 200,
          data: await ctx.db.tx(async (sql) => paymentView(sql, c, await oneStepCharge(sql, c, request.body))),
        };
      },
    );

    app.post(
      '/v1/charge/:id/pay',
      {
        config: write,
        schema: {
          tags,
          summary: 'Set the payment of a new charge, card or boleto (waiting)',
          ...id,
          body: AnyPayment,
          response: { 200: PaymentResult },
        },
      },
      async (request) => {
        const c = caller(request);
        return {
          code: 200,
          data: await ctx.db.tx(async (sql) =>
            paymentView(sql, c, await payCharge(sql, c, request.params.id, request.body.payment)),
          ),
        };
      },
    );

    app.post(
      '/v1/charge/:id/retry',
      {
        config: write,
        schema: {
          tags,
          summary: 'Retry an unpaid card charge',
          ...id,
          body: CardPayment,
          response: { 200: PaymentResult },
        },
      },
      async (request) => {
        const c = caller(request);
        return {
          code: 200,
          data: await ctx.db.tx(async (sql) =>
            paymentView(sql, c, await retryCharge(sql, c, request.params.id, request.body.payment.credit_card)),
          ),
        };
      },
    );

    app.post(
      '/v1/charge/card/:id/refund',
      {
        config: write,
        schema: {
          tags,
          summary: 'Refund a paid card charge (amount in cents; absent: all that remains)',
          ...id,
          body: RefundBody,
          response: { 200: RefundResult },
        },
      },
      async (request) => ({
        code: 200,
        status: 'processing',
        message: await ctx.db.tx((sql) => refundCharge(sql, caller(request), request.params.id, request.body?.amount)),
      }),
    );

    app.put(
      '/v1/charge/:id/cancel',
      { config: write, schema: { tags, summary: 'Cancel a charge', ...id, response: { 200: Done } } },
      async (request) => {
        await ctx.db.tx((sql) => cancelCharge(sql, caller(request), request.params.id));
        return { code: 200 };
      },
    );

    app.get(
      '/v1/charge/:id',
      {
        config: read,
        schema: { tags, summary: 'Read a charge with items and history', ...id, response: { 200: ChargeDetail } },
      },
      async (request) => ({
        code: 200,
        data: await chargeDetail(ctx.db, caller(request), request.params.id),
      }),
    );

    app.put(
      '/v1/charge/:id/metadata',
      {
        config: write,
        schema: {
          tags,
          summary: 'Set notification_url and custom_id',
          ...id,
          body: MetadataUpdate,
          response: { 200: Done },
        },
      },
      async (request) => {
        await ctx.db.tx((sql) => updateMetadata(sql, caller(request), request.params.id, request.body));
        return { code: 200 };
      },
    );

    if (ctx.config.environment === 'sandbox') {
      app.post(
        '/sandbox/billing/charge/:id/settle',
        {
          config: write,
          schema: {
            tags: ['Sandbox'],
            summary: 'Confirm an approved card charge now (sandbox)',
            ...id,
            response: { 200: Done },
          },
        },
        async (request) => {
          await ctx.db.tx((sql) => answerWaitingPayment(sql, caller(request), request.params.id));
          await ctx.db.tx((sql) => settleNow(sql, caller(request), request.params.id));
          return { code: 200 };
        },
      );
    }
  };
