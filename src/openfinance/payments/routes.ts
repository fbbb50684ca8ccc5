/** POST/GET/PATCH /v1/pagamentos-automaticos/pix (ofCreate/ofList/ofCancelAutomaticPixPayment). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../../pix/shared/caller.ts';
import { IdempotencyHeaders } from '../shared.ts';
import {
  PaymentBody,
  PaymentCancel,
  PaymentCancelled,
  PaymentCreated,
  PaymentList,
  PaymentListQuery,
} from './schemas.ts';
import { cancelPayment, createPayment, readPayments } from './service.ts';

const tags = ['Open Finance: pagamentos automáticos'];
const PATH = '/v1/pagamentos-automaticos/pix';

export const ofPaymentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const sandbox = ctx.config.environment === 'sandbox';

    app.post(
      PATH,
      {
        config: { scope: 'gn.opb.automatic.payment.write', rateLimited: true, invalidRequest: 'pagamento_invalido' },
        schema: {
          tags,
          summary: 'Request a payment of an authorised enrolment (settles on its date)',
          body: PaymentBody,
          headers: IdempotencyHeaders,
          response: { 200: PaymentCreated },
        },
      },
      async (request) =>
        ctx.db.tx((sql) =>
          createPayment(sql, callerOf(ctx, request), request.body, sandbox, request.headers['x-idempotency-key']),
        ),
    );

    app.get(
      PATH,
      {
        config: { scope: 'gn.opb.automatic.payment.read', invalidRequest: 'parametro_invalido' },
        schema: {
          tags,
          summary: "Read an enrolment's payments (by end-to-end id, status or period)",
          querystring: PaymentListQuery,
          response: { 200: PaymentList },
        },
      },
      async (request) => readPayments(ctx.db, callerOf(ctx, request), request.query),
    );

    app.patch(
      PATH,
      {
        config: { scope: 'gn.opb.automatic.payment.write', invalidRequest: 'pagamento_invalido' },
        schema: {
          tags,
          summary: 'Cancel a pending payment',
          body: PaymentCancel,
          response: { 200: PaymentCancelled },
        },
      },
      async (request) => ctx.db.tx((sql) => cancelPayment(sql, callerOf(ctx, request), request.body)),
    );
  };
