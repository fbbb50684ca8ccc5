/**
 * Open Finance Pix payments, as the SDK calls them: ofStart/ofList/ofDevolutionPix (`/v1/pagamentos/pix`),
 * ofStart/ofList/ofCancel/ofDevolutionSchedulePix (`/v1/pagamentos-agendados/pix`),
 * ofStart/ofList/ofCancel/ofDevolution/ofReplaceRecurrencyPix… (`/v1/pagamentos-recorrentes/pix`) and
 * ofCreate/ofListBiometricPixPayment (`/v1/pagamentos-biometria/pix`). Thin: the work is in service.ts,
 * manage.ts and read.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../../pix/shared/caller.ts';
import { payerFacingCallerOf } from '../caller.ts';
import { IdempotencyHeaders } from '../shared.ts';
import {
  cancelRecurring,
  cancelScheduled,
  refundImmediate,
  refundRecurring,
  refundScheduled,
  replaceParcel,
} from './manage.ts';
import { listBiometric, listImmediate, listRecurring, listScheduled } from './read.ts';
import {
  BiometricList,
  BiometricPaymentBody,
  CancelAnswer,
  ImmediateBody,
  ListQuery,
  PaymentList,
  PaymentParams,
  RecurringBody,
  RecurringList,
  RecurringRefundAnswer,
  RecurringRefundBody,
  RefundAnswer,
  RefundBody,
  ReplaceBody,
  ReplaceParams,
  ScheduledBody,
  ScheduledRefundBody,
  StartAnswer,
} from './schemas.ts';
import { startBiometricPayment, startPixPayment } from './service.ts';

const IMMEDIATE = '/v1/pagamentos/pix';
const SCHEDULED = '/v1/pagamentos-agendados/pix';
const RECURRING = '/v1/pagamentos-recorrentes/pix';
const BIOMETRIC = '/v1/pagamentos-biometria/pix';

const send = { scope: 'gn.opb.payment.pix.send', rateLimited: true, invalidRequest: 'pagamento_invalido' } as const;
const read = { scope: 'gn.opb.payment.pix.read', invalidRequest: 'parametro_invalido' } as const;
const refund = { scope: 'gn.opb.payment.pix.refund', rateLimited: true, invalidRequest: 'pagamento_invalido' } as const;
const cancel = { scope: 'gn.opb.payment.pix.cancel', invalidRequest: 'pagamento_invalido' } as const;

export const ofPixRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const sandbox = ctx.config.environment === 'sandbox';
    const tx = ctx.db.tx.bind(ctx.db);

    const starts = [
      [IMMEDIATE, 'imediato', ImmediateBody, 'Start an Open Finance Pix: the payer authorises it at redirectURI'],
      [SCHEDULED, 'agendado', ScheduledBody, 'Start a scheduled Open Finance Pix (dataAgendamento)'],
      [RECURRING, 'recorrente', RecurringBody, 'Start a recurring Open Finance Pix (recorrencia)'],
    ] as const;
    for (const [path, kind, body, summary] of starts)
      app.post(
        path,
        {
          config: send,
          schema: { tags: [tagOf(path)], summary, body, headers: IdempotencyHeaders, response: { 200: StartAnswer } },
        },
        async (request) =>
          tx((sql) =>
            startPixPayment(sql, payerFacingCallerOf(ctx, request), kind, request.body, {
              sandbox,
              idempotencyKey: request.headers['x-idempotency-key'],
            }),
          ),
      );

    const lists = [
      [IMMEDIATE, listImmediate, PaymentList],
      [SCHEDULED, listScheduled, PaymentList],
      [RECURRING, listRecurring, RecurringList],
      [BIOMETRIC, listBiometric, BiometricList],
    ] as const;
    for (const [path, list, answer] of lists)
      app.get(
        path,
        {
          config: read,
          schema: {
            tags: [tagOf(path)],
            summary: 'List payments created in a period',
            querystring: ListQuery,
            response: { 200: answer },
          },
        },
        async (request) => list(ctx.db, callerOf(ctx, request), request.query),
      );

    app.post(
      `${IMMEDIATE}/:identificadorPagamento/devolver`,
      {
        config: refund,
        schema: {
          tags: [tagOf(IMMEDIATE)],
          summary: 'Refund an immediate or biometric payment',
          params: PaymentParams,
          body: RefundBody,
          response: { 200: RefundAnswer },
        },
      },
      async (request) =>
        tx((sql) =>
          refundImmediate(sql, callerOf(ctx, request), request.params.identificadorPagamento, request.body.valor),
        ),
    );
    app.post(
      `${SCHEDULED}/:identificadorPagamento/devolver`,
      {
        config: refund,
        schema: {
          tags: [tagOf(SCHEDULED)],
          summary: 'Refund a scheduled payment',
          params: PaymentParams,
          body: ScheduledRefundBody,
          response: { 200: RefundAnswer },
        },
      },
      async (request) =>
        tx((sql) => refundScheduled(sql, callerOf(ctx, request), request.params.identificadorPagamento, request.body)),
    );
    app.post(
      `${RECURRING}/:identificadorPagamento/devolver`,
      {
        config: refund,
        schema: {
          tags: [tagOf(RECURRING)],
          summary: 'Refund parcels of a recurring payment',
          params: PaymentParams,
          body: RecurringRefundBody,
          response: { 200: RecurringRefundAnswer },
        },
      },
      async (request) =>
        tx((sql) =>
          refundRecurring(sql, callerOf(ctx, request), request.params.identificadorPagamento, request.body.devolucoes),
        ),
    );

    app.patch(
      `${SCHEDULED}/:identificadorPagamento/cancelar`,
      {
        config: cancel,
        schema: {
          tags: [tagOf(SCHEDULED)],
          summary: 'Cancel a scheduled payment before its date',
          params: PaymentParams,
          response: { 200: CancelAnswer },
        },
      },
      async (request) =>
        tx((sql) => cancelScheduled(sql, callerOf(ctx, request), request.params.identificadorPagamento)),
    );
    app.patch(
      `${RECURRING}/:identificadorPagamento/cancelar`,
      {
        config: cancel,
        schema: {
          tags: [tagOf(RECURRING)],
          summary: 'Cancel a recurring payment (by its id) or one parcel (by its end-to-end id)',
          params: PaymentParams,
          response: { 200: CancelAnswer },
        },
      },
      async (request) =>
        tx((sql) => cancelRecurring(sql, callerOf(ctx, request), request.params.identificadorPagamento)),
    );
    app.patch(
      `${RECURRING}/:identificadorPagamento/substituir/:endToEndId`,
      {
        config: send,
        schema: {
          tags: [tagOf(RECURRING)],
          summary: 'Replace a parcel of a recurring payment: the payer authorises the new one at redirectURI',
          params: ReplaceParams,
          body: ReplaceBody,
          headers: IdempotencyHeaders,
          response: { 200: StartAnswer },
        },
      },
      async (request) =>
        tx((sql) =>
          replaceParcel(sql, payerFacingCallerOf(ctx, request), request.params, request.body?.valor, {
            sandbox,
            idempotencyKey: request.headers['x-idempotency-key'],
          }),
        ),
    );

    app.post(
      BIOMETRIC,
      {
        config: send,
        schema: {
          tags: [tagOf(BIOMETRIC)],
          summary: 'Pay on an authorised biometric link (no page)',
          body: BiometricPaymentBody,
          headers: IdempotencyHeaders,
          response: { 200: StartAnswer },
        },
      },
      async (request) =>
        tx((sql) =>
          startBiometricPayment(sql, callerOf(ctx, request), request.body, {
            sandbox,
            idempotencyKey: request.headers['x-idempotency-key'],
          }),
        ),
    );
  };

function tagOf(path: string): string {
  if (path.startsWith(SCHEDULED)) return 'Open Finance: Pix agendado';
  if (path.startsWith(RECURRING)) return 'Open Finance: Pix recorrente';
  if (path.startsWith(BIOMETRIC)) return 'Open Finance: Pix por biometria';
  return 'Open Finance: Pix';
}
