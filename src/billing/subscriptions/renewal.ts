/**
 * Renewals: each parcel after the first is a charge made on its date by the account's clock (a boleto
 * subscription's: its boleto issued LIMITS.billingSubscriptionBilletLeadDays before that date, its due date). A subscription
 * has at most one pending renewal job, enqueued on the account's clock for midnight (Brasília) of its next
 * execution date, so `pixd clock advance` and the sandbox's per-account clock move it with the account's other
 * jobs. The job acts only on the parcel it names, and the (subscription, parcel) primary key makes a second
 * run of the same parcel fail rather than charge twice (outbox jobs run at least once).
 */
import type { Sql } from '../../platform/db/database.ts';
import { brasiliaDate, brasiliaDayStart, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { BillingCaller } from '../shared/caller.ts';
import { issueBoleto } from '../boletos/issue.ts';
import { defineTopic, enqueue, type JobDeps } from '../../platform/outbox/jobs.ts';
import type { FaultHooks } from '../../platform/faults.ts';
import { answerCardPayment, grossTotal } from '../charges/payment.ts';
import { insertCharge, updateCharge, type CardPaymentRecord, type ChargeRow } from '../charges/store.ts';
import { transition } from '../charges/transitions.ts';
import { randomBytes } from 'node:crypto';
import type { PlanRow } from '../plans/store.ts';
import { findPlanById } from '../plans/store.ts';
import {
  insertSubscriptionCharge,
  lockSubscription,
  type BilletSubscriptionPayment,
  type SubscriptionRow,
} from './store.ts';
import { moveSubscription } from './transitions.ts';

type RenewalJob = { subscriptionId: number; parcel: number };

type RenewalDeps = JobDeps & { faults?: FaultHooks; config: { publicUrl?: string }; pages: { url: string } };

export const RENEWAL_TOPIC = defineTopic<RenewalJob, RenewalDeps>({
  name: 'billing.subscription.renew',
  handler:
    ({ db, clock, faults, config, pages }) =>
    async (job) => {
      await db.tx(async (sql) => {
        const subscription = await lockSubscription(sql, { id: job.payload.subscriptionId });
        if (!subscription) return;
        const accountId = subscription.account_id;
        const now = clock.forAccount(accountId).now();
        await renew(
          sql,
          { accountId, now, faults, pagesUrl: pages.url, publicUrl: config.publicUrl },
          subscription,
          job.payload.parcel,
        );
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

/**
 * Schedules the renewal of `parcel` at midnight of its date (account's clock; a boleto's lead days before its
 * due date, not before now); null when the plan has no more.
 */
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
    availableAt: brasiliaDayStart(
      subscription.payment?.method === 'banking_billet'
        ? fromEpochDay(toEpochDay(date) - LIMITS.billingSubscriptionBilletLeadDays)
        : date,
    ),
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
  const stored = subscription.payment as CardPaymentRecord;
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

/**
 * A boleto renewal: the first boleto's terms, due on the parcel's date (a conditional discount moved with it),
 * or today when the job runs after that date (the clock jumped past it).
 */
async function issueRenewalBoleto(
  sql: Sql,
  caller: BillingCaller,
  subscription: SubscriptionRow,
  plan: PlanRow,
  charge: ChargeRow,
  parcel: number,
) {
  const { billet } = subscription.payment as BilletSubscriptionPayment;
  const months = plan.interval_months * (parcel - 1);
  const conditional = billet.conditional_discount;
  await issueBoleto(sql, caller, charge, {
    ...billet,
    expire_at: [parcelDate(subscription, plan, parcel), brasiliaDate(caller.now)].sort()[1],
    ...(conditional && {
      conditional_discount: { ...conditional, until_date: addMonths(conditional.until_date, months) },
    }),
  });
}

async function renew(sql: Sql, caller: BillingCaller, subscription: SubscriptionRow, parcel: number) {
  if (!['active', 'new_charge'].includes(subscription.status) || subscription.occurrences + 1 !== parcel) return;
  const { now } = caller;
  const plan = (await findPlanById(sql, subscription.plan_id))!;
  const charge = await subscriptionCharge(sql, subscription, parcel, now);
  if (subscription.payment?.method === 'banking_billet')
    await issueRenewalBoleto(sql, caller, subscription, plan, charge, parcel);
  else await chargeStoredCard(sql, subscription, charge, now, caller.faults);
  const next = await scheduleRenewal(sql, subscription, plan, parcel + 1, now);
  await moveSubscription(sql, subscription, next ? 'new_charge' : 'expired', now, {
    changes: { occurrences: parcel, next_execution: next },
    message: `Cobrança ${parcel} criada (cobrança ${charge.id}).`,
  });
}
