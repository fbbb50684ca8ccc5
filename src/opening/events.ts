/**
 * Account-opening callbacks: `{contaSimplificada: {identificador}, evento}` POSTed to each of the account's
 * opening webhooks, as registered (no suffix), 60 s timeout, retried at 5, 10, 20, 40, 80, 160, 320, 640,
 * 1280 and 52560 minutes after each failure on the service clock (spec: Events).
 */
import type { Database, Sql } from '../platform/db/database.ts';
import { enqueue, type JobHandler, type OutboxJob } from '../platform/outbox/outbox.ts';
import { attemptDelivery } from '../platform/webhooks/delivery.ts';
import type { WebhookDispatcher } from '../platform/webhooks/dispatcher.ts';
import { OPENING_RETRY_SCHEDULE } from '../platform/webhooks/schedule.ts';
import { webhookSettings } from '../platform/webhooks/settings.ts';
import type { OpeningCallbackBody, OpeningEvent } from './schemas.ts';
import { findOpeningWebhook, openingWebhooksOf } from './store.ts';

export const OPENING_TOPIC = 'webhook.opening';

interface OpeningEventPayload {
  accountId: number;
  webhookId: string;
  body: OpeningCallbackBody;
}

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

export function registerOpeningHandler(dispatcher: WebhookDispatcher, db: Database): void {
  const handler: JobHandler = async (job: OutboxJob<OpeningEventPayload>) => {
    const { accountId, webhookId, body } = job.payload;
    const webhook = await findOpeningWebhook(db, accountId, webhookId);
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
  dispatcher.register(OPENING_TOPIC, handler);
}
