/**
 * Card renewals of a batch of subscriptions, set-based (docs/billing.md, "Renewals"): what `renew` does for one
 * subscription statement by statement — the parcel's charge (new → waiting → the issuer's answer with the
 * stored card), its history and notification, the confirmation of the approved ones (one job for the batch,
 * charges/confirmations.ts, an hour later), the subscription's
 * move (new_charge, or expired after the plan's last parcel) with its history and `subscription` event, and
 * the next renewal's day — written for the whole batch by a handful of statements, whatever its size. The
 * batch's subscriptions are locked by the caller (renewal.ts); the issuer's answer is the sandbox's, by the
 * card number's last digit, as `answerCardPayment` gives it (a refused renewal is unpaid, not retryable: the
 * charge is recurrent). Card faults on demand are not applied here: the caller renews one by one while one is
 * asked for.
 */
import { newNotificationToken, newPageToken } from '../shared/url-tokens.ts';
import type { Sql } from '../../platform/db/database.ts';
import { jobRow, type JobRow } from '../../platform/outbox/jobs.ts';
import { issuerRefusal } from '../charges/payment.ts';
import { confirmationsJob } from '../charges/confirmations.ts';
import { MESSAGES } from '../charges/transitions.ts';
import { cardNumbersOf } from '../tokens/service.ts';
import { notificationJob } from '../notifications/delivery.ts';
import { findPlanById, type PlanRow } from '../plans/store.ts';
import { nextRenewal, renewalMessage, storedCardTerms } from './schedule.ts';
import { insertRenewalCharges, lockFirstCharges, writeRenewals, type RenewalCharge } from './renewal-store.ts';
import type { SubscriptionRow } from './store.ts';
import { assertMove, moveMessage } from './transitions.ts';

/** A renewal charge's status events, each notified (new, waiting, the issuer's answer): its last generation. */
const CHARGE_EVENTS = 3;

/** The plans of these subscriptions, read once each. */
export async function plansOf(sql: Sql, subscriptions: SubscriptionRow[]): Promise<Map<number, PlanRow>> {
  const ids = [...new Set(subscriptions.map((s) => s.plan_id))];
  return new Map(await Promise.all(ids.map(async (id) => [id, (await findPlanById(sql, id))!] as const)));
}

/**
 * Renews each subscription's next parcel by its stored card; all of one account, locked, active or new_charge.
 * Answers the days their next renewals run (the caller makes sure each has its job).
 */
export async function renewCardBatch(
  sql: Sql,
  batch: { subscription: SubscriptionRow; plan: PlanRow }[],
  now: Date,
): Promise<string[]> {
  if (!batch.length) return [];
  const accountId = batch[0].subscription.account_id;
  const numbers = await cardNumbersOf(
    sql,
    batch.map(({ subscription }) => storedCardTerms(subscription).payment.token_ref),
  );
  const renewals = batch.map(({ subscription: s, plan }) => {
    const parcel = s.occurrences + 1;
    const { payment, totalCents } = storedCardTerms(s);
    const refusal = issuerRefusal(numbers.get(payment.token_ref)!) ?? null;
    const next = nextRenewal(s, plan, parcel + 1);
    const to = next ? ('new_charge' as const) : ('expired' as const);
    assertMove(s.status, to);
    const charge: RenewalCharge = {
      status: refusal ? 'unpaid' : 'approved',
      totalCents,
      items: s.items,
      shippings: s.shippings,
      customId: s.custom_id,
      notificationUrl: s.notification_url,
      notificationToken: newNotificationToken(),
      notificationGeneration: s.notification_url ? CHARGE_EVENTS : 0,
      checkoutToken: newPageToken(),
      marketplace: s.items.some((i) => i.marketplace),
      payment,
      refusal,
    };
    return { s, parcel, next, to, charge };
  });
  const chargeIds = await insertRenewalCharges(
    sql,
    accountId,
    renewals.map((r) => r.charge),
    now,
  );
  const firsts = await lockFirstCharges(
    sql,
    renewals.map((r) => r.s.id),
  );
  const jobs: JobRow[] = [];
  const written = renewals.map(({ s, parcel, next, to, charge }) => {
    const chargeId = chargeIds.get(charge.notificationToken)!;
    const ref = { id: chargeId, account_id: accountId };
    if (charge.notificationUrl) jobs.push(jobRow(notificationJob(ref, CHARGE_EVENTS, now)));
    const first = firsts.get(s.id)!;
    const firstGeneration = first.notification_url ? first.notification_generation + 1 : first.notification_generation;
    if (first.notification_url) jobs.push(jobRow(notificationJob(first, firstGeneration, now)));
    return {
      charge: {
        chargeId,
        subscriptionId: s.id,
        parcel,
        status: charge.status,
        message: charge.refusal ? `${MESSAGES.unpaid} Motivo: ${charge.refusal}` : MESSAGES.approved!,
      },
      subscription: {
        id: s.id,
        previous: s.status,
        status: to,
        occurrences: parcel,
        nextExecution: next?.date ?? null,
        renewsOn: next?.day ?? null,
        message: moveMessage(to, renewalMessage(parcel, chargeId)),
        firstChargeId: first.id,
        firstGeneration,
      },
    };
  });
  const approved = written.filter((w) => w.charge.status === 'approved').map((w) => w.charge.chargeId);
  if (approved.length) jobs.push(jobRow(confirmationsJob(accountId, approved, now)));
  await writeRenewals(sql, {
    accountId,
    now,
    charges: written.map((w) => w.charge),
    subscriptions: written.map((w) => w.subscription),
    jobs,
  });
  return [...new Set(renewals.flatMap((r) => (r.next ? [r.next.day] : [])))];
}
