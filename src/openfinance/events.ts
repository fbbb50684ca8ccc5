/**
 * Callbacks of automatic payments: every status change of an enrolment or a payment is POSTed to the
 * application's `webhookURL` (PUT /v1/config) through the durable outbox, on the webhook lanes, with the Pix
 * retry schedule and the delivery inspector. pixd always presents its client certificate (mutual TLS); with
 * `webhookSecurity.type: hmac` it also signs the body: `x-pixd-hmac-sha256` is the hex HMAC-SHA256 of the exact
 * bytes sent, keyed with `webhookSecurity.hash`. The address and security are read when the callback is
 * delivered, so a changed configuration applies to callbacks still pending.
 */
import { createHmac } from 'node:crypto';
import type { Sql } from '../platform/db/database.ts';
import { defineTopic, enqueue, type JobHandler } from '../platform/outbox/jobs.ts';
import { attemptDelivery, type DeliveryDeps } from '../platform/webhooks/delivery.ts';
import { PIX_RETRY_SCHEDULE } from '../platform/webhooks/schedule.ts';
import { webhookSettings } from '../platform/webhooks/settings.ts';
import { findOfConfig } from './config/store.ts';
import type { EnrolmentStatus, PaymentStatus } from './shared.ts';

export const HMAC_HEADER = 'x-pixd-hmac-sha256';

export type OfCallbackBody =
  | {
      tipo: 'adesao';
      identificadorAdesao: string;
      idProprio?: string;
      status: EnrolmentStatus;
      motivo?: string;
      data: string;
    }
  | {
      tipo: 'pagamento';
      identificadorAdesao: string;
      endToEndId: string;
      valor: string;
      status: PaymentStatus;
      motivo?: string;
      data: string;
    }
  | {
      /** An Open Finance Pix payment (docs/open-finance-pix.md): the payment, or one of its parcels. */
      tipo: 'pagamento';
      identificadorPagamento: string;
      idProprio?: string;
      endToEndId?: string;
      valor: string;
      status: string;
      motivo?: string;
      data: string;
    }
  | {
      tipo: 'devolucao';
      identificadorPagamento: string;
      endToEndId: string;
      identificadorDevolucao: string;
      valor: string;
      status: string;
      /** Why a refund was `rejeitado`. */
      motivo?: string;
      data: string;
    }
  | { tipo: 'vinculo'; identificadorVinculo: string; status: string; motivo?: string; data: string };

export interface OfCallbackPayload {
  accountId: number;
  body: OfCallbackBody;
}

export const OF_CALLBACK_TOPIC = defineTopic<OfCallbackPayload, DeliveryDeps>({
  name: 'webhook.openfinance',
  handler: (deps) => callbackHandler(deps),
});

/** What a callback is about: its changes are delivered in order. */
const subjectOf = (body: OfCallbackBody) =>
  'identificadorAdesao' in body
    ? body.identificadorAdesao
    : 'identificadorPagamento' in body
      ? body.identificadorPagamento
      : body.identificadorVinculo;

/** In the transaction of the status change; ordered per enrolment, payment or link so a receiver sees changes in order. */
export function enqueueOfCallback(sql: Sql, accountId: number, body: OfCallbackBody, now: Date) {
  return enqueue(sql, {
    topic: OF_CALLBACK_TOPIC,
    orderingKey: `of:${subjectOf(body)}`,
    payload: { accountId, body },
    accountId,
    availableAt: now,
    now,
  });
}

export const signBody = (key: string, body: unknown) =>
  createHmac('sha256', key).update(JSON.stringify(body)).digest('hex');

function callbackHandler(deps: DeliveryDeps): JobHandler<OfCallbackPayload> {
  return async (job) => {
    const { accountId, body } = job.payload;
    const config = await findOfConfig(deps.db, accountId);
    if (!config) return { done: true };
    return attemptDelivery(deps, job, {
      accountId,
      url: config.webhook_url,
      body,
      timeoutMs: webhookSettings().deliveryTimeoutMs,
      schedule: PIX_RETRY_SCHEDULE,
      ...(config.webhook_security === 'hmac' && { headers: { [HMAC_HEADER]: signBody(config.hmac_key!, body) } }),
    });
  };
}
