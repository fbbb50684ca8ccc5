/**
 * Delivery of Pix, recurrence and automatic-charge webhooks. Events are outbox jobs written with the state
 * change (received Pix and settled refunds: src/pix/received/events.ts; sent scheduled Pix:
 * src/pix/schedules/events.ts; recurrences and automatic charges: `enqueueAccountEvent`); the handlers
 * here decide at delivery time whether a webhook is registered, and where the callback goes. No webhook
 * (or a Pix not notified): the job is done with no attempt recorded. The settlement statement stores such a
 * job done already when the key has no webhook (src/pix/payments/store.ts; docs/webhooks.md).
 */
import type { Sql } from '../../platform/db/database.ts';
import { defineTopic, enqueue, type JobHandler, type NewJob, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { attemptDelivery, type DeliveryDeps } from '../../platform/webhooks/delivery.ts';
import { NO_RETRY, PIX_RETRY_SCHEDULE, type RetrySchedule } from '../../platform/webhooks/schedule.ts';
import { webhookSettings } from '../../platform/webhooks/settings.ts';
import { callbackUrl } from '../../platform/webhooks/urls.ts';
import { isNotified, notificationSettingsOf, pixWebhookBody } from './notification.ts';
import type { AccountEventPayload, PixEventPayload, WebhookCobrBody, WebhookRecBody } from './payloads.ts';
import { findAccountWebhook, findPixWebhookWithSettings, type AccountWebhookKind } from './store.ts';

const SUFFIX = { pix: '/pix', rec: '/rec', cobr: '/cobr' } as const;
const DONE = { done: true } as const;

/** The Pix, recurrence and automatic-charge webhook topics, delivered on the webhook lanes. */
export const WEBHOOK_TOPICS = {
  /** Received Pix and their refunds (src/pix/received/events.ts), sent scheduled Pix (src/pix/schedules/events.ts). */
  pix: defineTopic<PixEventPayload, DeliveryDeps>({
    name: 'webhook.pix',
    handler: (deps) => pixHandler(deps, PIX_RETRY_SCHEDULE),
  }),
  /** A resend: same body and routing as a Pix event, exactly one attempt (spec). */
  pixResend: defineTopic<PixEventPayload, DeliveryDeps>({
    name: 'webhook.pix.resend',
    handler: (deps) => pixHandler(deps, NO_RETRY),
  }),
  rec: defineTopic<AccountEventPayload, DeliveryDeps>({ name: 'webhook.rec', handler: (deps) => accountHandler(deps) }),
  cobr: defineTopic<AccountEventPayload, DeliveryDeps>({
    name: 'webhook.cobr',
    handler: (deps) => accountHandler(deps),
  }),
};

/** Bacen WebhookRecBody `{recs: [item]}` or WebhookCobRBody `{cobsr: [item]}`. */
export function accountEventBody(kind: AccountWebhookKind, item: unknown): WebhookRecBody | WebhookCobrBody {
  return kind === 'rec' ? { recs: [item] } : { cobsr: [item] };
}

/** Recurrence and automatic-charge events: `orderingRef` (idRec, txid) keeps one subject's events in order. */
export async function enqueueAccountEvent(
  sql: Sql,
  kind: AccountWebhookKind,
  accountId: number,
  item: Record<string, unknown>,
  orderingRef: string,
  now: Date,
): Promise<number> {
  return enqueue(sql, accountEventJob(kind, accountId, item, orderingRef, now));
}

/** What keeps one subject's recurrence or automatic-charge events in order; also how its deliveries are found. */
export const accountEventOrderingKey = (kind: AccountWebhookKind, accountId: number, orderingRef: string) =>
  `${kind}:${accountId}:${orderingRef}`;

/** The job `enqueueAccountEvent` writes, for a statement that writes it among other rows (a batched settlement). */
export function accountEventJob(
  kind: AccountWebhookKind,
  accountId: number,
  item: Record<string, unknown>,
  orderingRef: string,
  now: Date,
): NewJob<AccountEventPayload> {
  return {
    topic: WEBHOOK_TOPICS[kind],
    orderingKey: accountEventOrderingKey(kind, accountId, orderingRef),
    payload: { accountId, kind, body: accountEventBody(kind, item) },
    accountId,
    availableAt: now,
    now,
  };
}

/** A resend job: no ordering key, since it is one extra attempt of something already delivered or given up. */
export async function enqueuePixResend(sql: Sql, payload: PixEventPayload, now: Date): Promise<number> {
  return enqueue(sql, {
    topic: WEBHOOK_TOPICS.pixResend,
    payload,
    accountId: payload.accountId,
    availableAt: now,
    now,
  });
}

/**
 * A key's registration and notification settings, as read by deliveries, are shared for a moment: a busy
 * key's claimed batch (up to 100 events) costs one lookup, not one per event. A change of webhook or
 * settings therefore reaches deliveries within this window, on every node alike.
 */
export const WEBHOOK_LOOKUP_SHARED_MS = 100;

function sharedLookup<T>(load: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const entries = new Map<string, { atMs: number; value: Promise<T> }>();
  return (key) => {
    const nowMs = Date.now();
    const entry = entries.get(key);
    if (entry && nowMs - entry.atMs < WEBHOOK_LOOKUP_SHARED_MS) return entry.value;
    if (entries.size > 10_000) entries.clear();
    const value = load(key);
    // A failed lookup is not shared: the next event asks again.
    value.catch(() => entries.delete(key));
    entries.set(key, { atMs: nowMs, value });
    return value;
  };
}

function pixHandler(dispatcher: DeliveryDeps, schedule: RetrySchedule): JobHandler<PixEventPayload> {
  const { db } = dispatcher;
  const lookup = sharedLookup(async (key) => {
    const [accountId, chave] = JSON.parse(key) as [number, string];
    const found = await findPixWebhookWithSettings(db, accountId, chave);
    return found && { webhook: found.webhook, settings: notificationSettingsOf(found.settings) };
  });
  return async (job: OutboxJob<PixEventPayload>) => {
    const { accountId, chave } = job.payload;
    if (!chave) return DONE;
    const found = await lookup(JSON.stringify([accountId, chave]));
    if (!found || !isNotified(job.payload, found.settings)) return DONE;
    const { settings, webhook } = found;
    return attemptDelivery(dispatcher, job, {
      accountId,
      url: callbackUrl(webhook.webhook_url, SUFFIX.pix),
      body: pixWebhookBody(job.payload, settings),
      timeoutMs: webhookSettings().deliveryTimeoutMs,
      schedule,
    });
  };
}

function accountHandler(dispatcher: DeliveryDeps): JobHandler<AccountEventPayload> {
  return async (job: OutboxJob<AccountEventPayload>) => {
    const { accountId, kind, body } = job.payload;
    const webhook = await findAccountWebhook(dispatcher.db, accountId, kind);
    if (!webhook) return DONE;
    return attemptDelivery(dispatcher, job, {
      accountId,
      url: callbackUrl(webhook.webhook_url, SUFFIX[kind]),
      body,
      timeoutMs: webhookSettings().deliveryTimeoutMs,
      schedule: PIX_RETRY_SCHEDULE,
    });
  };
}
