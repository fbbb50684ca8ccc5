/**
 * Renewals: each parcel after the first is a charge made on its date by the account's clock. A subscription
 * has at most one pending renewal job, enqueued on the account's clock for midnight (Brasília) of its next
 * execution date, so `pixd clock advance` and the sandbox's per-account clock move it with the account's other
 * jobs. The job acts only on the parcel it names, and the (subscription, parcel) primary key makes a second
 * run of the same parcel fail rather than charge twice (outbox jobs run at least once).
 */
import type { Sql } from '../../platform/db/database.ts';
import { brasiliaDayStart } from '../../platform/calendar.ts';
import { defineTopic, enqueue, type JobDeps } from '../../platform/outbox/jobs.ts';
import type { FaultHooks } from '../../platform/faults.ts';
import { answerCardPayment, grossTotal } from '../charges/payment.ts';
import { insertCharge, updateCharge, type ChargeRow } from '../charges/store.ts';
import { transition } from '../charges/transitions.ts';
import { randomBytes } from 'node:crypto';
import type { PlanRow } from '../plans/store.ts';
import { findPlanById } from '../plans/store.ts';
import { insertSubscriptionCharge, lockSubscription, type SubscriptionRow } from './store.ts';
import { moveSubscription } from './transitions.ts';

type RenewalJob = { subscriptionId: number; parcel: number };

export const RENEWAL_TOPIC = defineTopic<RenewalJob, JobDeps & { faults?: FaultHooks }>({
  name: 'billing.subscription.renew',
  handler:
    ({ db, clock, faults }) =>
    async (job) => {
      await db.tx(async (sql) => {
        const subscription = await lockSubscription(sql, { id: job.payload.subscriptionId });
        if (!subscription) return;
        const now = clock.forAccount(subscription.account_id).now();
        await renew(sql, subscription, job.payload.parcel, now, faults);
      });
      return { done: true };
    },
});

/** `date` plus `months` calendar months, the day clamped to the month's last (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(d, daysInMonth)).padStart(2, '0')}`;
}

/** The date of parcel `parcel` (1 = the first execution). */
export const parcelDate = (s: Pick<SubscriptionRow, 'first_execution'>, plan: PlanRow, parcel: number) =>
  addMonths(s.first_execution!, plan.interval_months * (parcel - 1));

/** Schedules the renewal of `parcel` at midnight of its date (account's clock); null when the plan has no more. */
export async function scheduleRenewal(
  sql: Sql,
  subscription: SubscriptionRow,
  plan: PlanRow,
  parcel: number,
  now: Date,
): Promise<string | null> {
  if (plan.repeats !== null && parcel > plan.repeats) return null;
  const date = parcelDate(subscription, plan, parcel);
  await enqueue(sql, {
    topic: RENEWAL_TOPIC,
    payload: { subscriptionId: subscription.id, parcel },
    accountId: subscription.account_id,
    availableAt: brasiliaDayStart(date),
    now,
  });
  return date;
}

/** A new charge of the subscription (status new), recurrent (a refused renewal is not retried), parcel recorded. */
export async function subscriptionCharge(
  sql: Sql,
  subscription: SubscriptionRow,
  parcel: number,
  now: Date,
): Promise<ChargeRow> {
  const charge = await insertCharge(
    sql,
    {
      account_id: subscription.account_id,
      status: 'new',
      total_cents: grossTotal(subscription),
      items: subscription.items,
      shippings: subscription.shippings,
      custom_id: subscription.custom_id,
      notification_url: subscription.notification_url,
      notification_token: randomBytes(18).toString('hex'),
      checkout_token: randomBytes(18).toString('base64url'),
      marketplace: subscription.items.some((i) => i.marketplace),
    },
    now,
  );
  await updateCharge(sql, charge.id, { recurrent: true }, now);
  charge.recurrent = true;
  await insertSubscriptionCharge(sql, subscription.id, parcel, charge.id);
  await transition(sql, charge, 'none', 'new', now);
  return charge;
}

/** Charges a charge with the subscription's stored card (no token spent): waiting, then the issuer's answer inline. */
export async function chargeStoredCard(
  sql: Sql,
  subscription: SubscriptionRow,
  charge: ChargeRow,
  now: Date,
  faults?: FaultHooks,
): Promise<void> {
  const stored = subscription.payment!;
  const gross = grossTotal(charge);
  const discount = stored.discount_cents < gross ? stored.discount_cents : 0;
  await transition(sql, charge, 'new', 'waiting', now, {
    changes: {
      payment: { ...stored, installments: 1, installment_value: gross - discount, discount_cents: discount },
      total_cents: gross - discount,
    },
  });
  await answerCardPayment(sql, charge, now, faults);
}

async function renew(sql: Sql, subscription: SubscriptionRow, parcel: number, now: Date, faults?: FaultHooks) {
  if (!['active', 'new_charge'].includes(subscription.status) || subscription.occurrences + 1 !== parcel) return;
  const plan = (await findPlanById(sql, subscription.plan_id))!;
  const charge = await subscriptionCharge(sql, subscription, parcel, now);
  await chargeStoredCard(sql, subscription, charge, now, faults);
  const next = await scheduleRenewal(sql, subscription, plan, parcel + 1, now);
  await moveSubscription(sql, subscription, next ? 'new_charge' : 'expired', now, {
    changes: { occurrences: parcel, next_execution: next },
    message: `Cobrança ${parcel} criada (cobrança ${charge.id}).`,
  });
}
