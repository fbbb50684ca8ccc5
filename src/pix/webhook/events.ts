/**
 * Delivery of Pix, recurrence and automatic-charge webhooks. Events are outbox jobs written with the state
 * change (received Pix and settled refunds: src/pix/received/events.ts; sent scheduled Pix:
 * src/pix/schedules/events.ts; recurrences and automatic charges: `enqueueAccountEvent`); the handlers
 * here decide at delivery time whether a webhook is registered, and where the callback goes. No webhook
 * (or a Pix not notified): the job is done with no attempt recorded.
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import type { JobHandler, OutboxJob } from '../../platform/outbox/outbox.ts';
import { enqueue } from '../../platform/outbox/outbox.ts';
import { attemptDelivery } from '../../platform/webhooks/delivery.ts';
import type { WebhookDispatcher } from '../../platform/webhooks/dispatcher.ts';
import { NO_RETRY, PIX_RETRY_SCHEDULE, type RetrySchedule } from '../../platform/webhooks/schedule.ts';
import { webhookSettings } from '../../platform/webhooks/settings.ts';
import { callbackUrl } from '../../platform/webhooks/urls.ts';
import { PIX_EVENT_TOPIC } from '../received/events.ts';
import type { PixView } from '../received/view.ts';
import type { SentPixView } from '../schedules/events.ts';
import { isNotified, notificationSettingsOf, pixWebhookBody } from './notification.ts';
import { findAccountWebhook, findPixWebhookWithSettings, type AccountWebhookKind } from './store.ts';

export const WEBHOOK_TOPICS = {
  pix: PIX_EVENT_TOPIC,
  /** A resend: same body and routing as a Pix event, exactly one attempt (spec). */
  pixResend: 'webhook.pix.resend',
  rec: 'webhook.rec',
  cobr: 'webhook.cobr',
} as const;

/** A received Pix (or its refunds), or with `envio` a Pix the account sent (src/pix/schedules/events.ts). */
export type PixEventPayload = { accountId: number; chave: string | null; txid: string | null } & (
  | { envio?: false; pix: PixView[] }
  | { envio: true; pix: SentPixView[] }
);

export interface AccountEventPayload {
  accountId: number;
  kind: AccountWebhookKind;
  /** Bacen WebhookRecBody `{recs: [...]}` or WebhookCobRBody `{cobsr: [...]}`. */
  body: Record<string, unknown[]>;
}

const SUFFIX = { pix: '/pix', rec: '/rec', cobr: '/cobr' } as const;
const DONE = { done: true } as const;

/** Recurrence and automatic-charge events: `orderingRef` (idRec, txid) keeps one subject's events in order. */
export async function enqueueAccountEvent(
  sql: Sql,
  kind: AccountWebhookKind,
  accountId: number,
  item: Record<string, unknown>,
  orderingRef: string,
  now: Date,
): Promise<number> {
  const payload: AccountEventPayload = { accountId, kind, body: { [kind === 'rec' ? 'recs' : 'cobsr']: [item] } };
  return enqueue(sql, {
    topic: WEBHOOK_TOPICS[kind],
    orderingKey: `${kind}:${accountId}:${orderingRef}`,
    payload,
    availableAt: now,
    now,
  });
}

/** A resend job: no ordering key, since it is one extra attempt of something already delivered or given up. */
export async function enqueuePixResend(sql: Sql, payload: PixEventPayload, now: Date): Promise<number> {
  return enqueue(sql, { topic: WEBHOOK_TOPICS.pixResend, payload, availableAt: now, now });
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

function pixHandler(db: Database, dispatcher: WebhookDispatcher, schedule: RetrySchedule): JobHandler {
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

function accountHandler(db: Database, dispatcher: WebhookDispatcher): JobHandler {
  return async (job: OutboxJob<AccountEventPayload>) => {
    const { accountId, kind, body } = job.payload;
    const webhook = await findAccountWebhook(db, accountId, kind);
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

export function registerPixWebhookHandlers(dispatcher: WebhookDispatcher, db: Database): void {
  dispatcher.register(WEBHOOK_TOPICS.pix, pixHandler(db, dispatcher, PIX_RETRY_SCHEDULE));
  dispatcher.register(WEBHOOK_TOPICS.pixResend, pixHandler(db, dispatcher, NO_RETRY));
  dispatcher.register(WEBHOOK_TOPICS.rec, accountHandler(db, dispatcher));
  dispatcher.register(WEBHOOK_TOPICS.cobr, accountHandler(db, dispatcher));
}
