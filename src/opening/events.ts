/**
 * Account-opening callbacks: `{contaSimplificada: {identificador}, evento}` POSTed to each of the account's
 * opening webhooks, as registered (no suffix), 60 s timeout, retried at 5, 10, 20, 40, 80, 160, 320, 640,
 * 1280 and 52560 minutes after each failure on the service clock (spec: Events).
 */
import type { Sql } from '../platform/db/database.ts';
import { defineTopic, enqueue, type JobHandler, type OutboxJob } from '../platform/outbox/jobs.ts';
import { attemptDelivery, type DeliveryDeps } from '../platform/webhooks/delivery.ts';
import { OPENING_RETRY_SCHEDULE } from '../platform/webhooks/schedule.ts';
import { webhookSettings } from '../platform/webhooks/settings.ts';
import type { OpeningEventPayload } from '../pix/webhook/payloads.ts';
import type { OpeningEvent } from './schemas.ts';
import { findOpeningWebhook, openingWebhooksOf } from './store.ts';

/** Delivered on the webhook lanes. */
export const OPENING_TOPIC = defineTopic<OpeningEventPayload, DeliveryDeps>({
  name: 'webhook.opening',
  handler: (deps) => openingHandler(deps),
});

/** One job per registered webhook, in order per webhook. Returns how many were queued. */
export async function enqueueOpeningEvent(
  sql: Sql,
  accountId: number,
  identificador: string,
  evento: OpeningEvent,
  now: Date,
): Promise<number> {
  const webhooks = await openingWebhooksOf(sql, accountId);
  for (const webhook of webhooks) {
    const payload: OpeningEventPayload = {
      accountId,
      webhookId: webhook.id,
      body: { contaSimplificada: { identificador }, evento },
    };
    await enqueue(sql, {
      topic: OPENING_TOPIC,
      orderingKey: `opening:${webhook.id}`,
      payload,
      accountId,
      availableAt: now,
      now,
    });
  }
  return webhooks.length;
}

function openingHandler(dispatcher: DeliveryDeps): JobHandler<OpeningEventPayload> {
  return async (job: OutboxJob<OpeningEventPayload>) => {
    const { accountId, webhookId, body } = job.payload;
    const webhook = await findOpeningWebhook(dispatcher.db, accountId, webhookId);
    // Removed since: nothing to deliver.
    if (!webhook) return { done: true };
    return attemptDelivery(dispatcher, job, {
      accountId,
      url: webhook.webhook_url,
      body,
      timeoutMs: webhookSettings().openingTimeoutMs,
      schedule: OPENING_RETRY_SCHEDULE,
    });
  };
}
