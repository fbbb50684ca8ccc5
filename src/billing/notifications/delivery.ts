/**
 * Billing notifications on the durable outbox (spec: Billing notifications; docs/billing.md).
 *
 * Every status change of a charge with a notification_url enqueues one delivery job carrying a generation
 * number; the charge keeps the latest generation, so an older job that is still retrying sees it is superseded
 * and stops (the POST is the same for every change: `notification=<token>`, so one live job per charge is
 * enough). A job ends when the receiver has queried the token past the newest event ("delivered only when
 * queried"), otherwise it POSTs again on LIMITS.billingNotificationScheduleMinutes (also after a 200) until
 * 3 days after its first attempt. Each attempt goes through the webhooks engineer's transport (service client
 * certificate, extra trust for tests, attempt records); failures also land in the charge history. The URL is
 * read at every attempt, so after PUT /v1/charge/:id/metadata changes it the next attempt uses the new one.
 */
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { defineTopic, enqueue, type JobHandler, type NewJob, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { attemptDelivery, type DeliveryDeps } from '../../platform/webhooks/delivery.ts';
import { webhookSettings } from '../../platform/webhooks/settings.ts';
import { findCharge, insertHistory, lastEventId, updateCharge, type ChargeRow } from '../charges/store.ts';

const MINUTE_MS = 60_000;
const WINDOW_MS = LIMITS.billingNotificationWindowSeconds * 1000;

interface NotificationPayload {
  chargeId: number;
  accountId: number;
  generation: number;
  /** Service-clock time of the first attempt of this notification: the 3-day window starts here. */
  windowStartMs: number;
  /**
   * Asked for by PUT …/metadata `resend: true`: POSTed even though the newest event's token was queried, until a
   * POST is answered; then the usual rule (until queried).
   */
  resend?: true;
}

/** Delivered on the webhook lanes. */
export const NOTIFICATION_TOPIC = defineTopic<NotificationPayload, DeliveryDeps>({
  name: 'billing.notification',
  handler: (deps) => notificationHandler(deps),
});

/** Called inside the transaction of a status change (or of a URL change). */
export async function enqueueNotification(
  sql: Sql,
  charge: ChargeRow,
  now: Date,
  windowStartMs = now.getTime(),
  options: Pick<NotificationPayload, 'resend'> = {},
): Promise<void> {
  if (!charge.notification_url) return;
  const generation = charge.notification_generation + 1;
  await updateCharge(sql, charge.id, { notification_generation: generation }, now);
  charge.notification_generation = generation;
  const job = notificationJob(charge, generation, now, windowStartMs);
  await enqueue(sql, { ...job, payload: { ...job.payload, ...options } });
}

/**
 * The delivery job of a charge's notification `generation` (the charge row must carry that generation): what
 * `enqueueNotification` writes, for statements that write many (a renewal batch, src/billing/subscriptions).
 */
export function notificationJob(
  charge: Pick<ChargeRow, 'id' | 'account_id'>,
  generation: number,
  now: Date,
  windowStartMs = now.getTime(),
): NewJob<NotificationPayload> {
  const payload: NotificationPayload = { chargeId: charge.id, accountId: charge.account_id, generation, windowStartMs };
  return { topic: NOTIFICATION_TOPIC, payload, accountId: charge.account_id, availableAt: now, now };
}

/**
 * After the notification URL changed: delivery continues to the new URL when the newest status event has not
 * been queried and was first sent at most 3 days ago (a new job, superseding the old one, tries at once).
 */
export async function continueAfterUrlChange(
  sql: Sql,
  charge: ChargeRow,
  lastEventAt: Date | undefined,
  now: Date,
): Promise<void> {
  if (!lastEventAt || (await queried(sql, charge))) return;
  if (now.getTime() - lastEventAt.getTime() > WINDOW_MS) return;
  await enqueueNotification(sql, charge, now, lastEventAt.getTime());
}

/** The receiver has queried the token past the charge's newest event: nothing left to notify. */
async function queried(sql: Sql, charge: ChargeRow): Promise<boolean> {
  return charge.notification_queried_event >= (await lastEventId(sql, charge.id));
}

/** When to POST again after attempt n, or null once past the 3-day window. */
export function nextSendAt(attempt: number, nowMs: number, windowStartMs: number): Date | null {
  const schedule = LIMITS.billingNotificationScheduleMinutes;
  const next = nowMs + schedule[Math.min(attempt, schedule.length) - 1] * MINUTE_MS;
  return next > windowStartMs + WINDOW_MS ? null : new Date(next);
}

function notificationHandler(dispatcher: DeliveryDeps): JobHandler<NotificationPayload> {
  const { db } = dispatcher;
  return async (job: OutboxJob<NotificationPayload>) => {
    const { chargeId, generation, windowStartMs } = job.payload;
    const charge = await findCharge(db, { id: chargeId });
    if (!charge || charge.notification_generation !== generation || !charge.notification_url) return { done: true };
    if (!job.payload.resend && (await queried(db, charge))) return { done: true };
    const clock = dispatcher.clock.forAccount(charge.account_id);
    if (clock.nowMs() > windowStartMs + WINDOW_MS) return { giveUp: 'token não consultado em 3 dias' };
    const url = charge.notification_url;
    // The schedule counts from when this attempt began, not from when its answer arrived: a slow receiver must
    // not push every later send back by its own latency.
    const startedMs = clock.nowMs();
    const outcome = await attemptDelivery(dispatcher, job, {
      accountId: charge.account_id,
      url,
      // Efí's shape: a form field, not JSON (spec: "POSTs only notification=<token>").
      body: { notification: charge.notification_token },
      form: true,
      timeoutMs: webhookSettings().deliveryTimeoutMs,
      schedule: [],
      // Sent again after a 200 until the token is queried: the schedule below decides, not the answer.
      doneOnSuccess: false,
    });
    // This node is stopping: another one tries at once.
    if ('retryAt' in outcome) return outcome;
    const failed = 'giveUp' in outcome;
    if (failed)
      await insertHistory(
        db,
        chargeId,
        { message: `Falha ao enviar a notificação para ${url}: ${outcome.giveUp.replace(/^.*última: /, '')}` },
        clock.now(),
      );
    // A resend answered: done if the token was queried (before the resend or since), as any other job would be.
    if (!failed && job.payload.resend && (await queried(db, (await findCharge(db, { id: chargeId }))!)))
      return { done: true };
    const next = nextSendAt(job.attempt, startedMs, windowStartMs);
    const state = failed ? 'falhou' : 'recebida, token ainda não consultado';
    return next
      ? { retryAt: next, error: `tentativa ${job.attempt} ${state}` }
      : { giveUp: `tentativa ${job.attempt} ${state}; janela de 3 dias encerrada` };
  };
}
