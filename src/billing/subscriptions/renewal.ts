/**
 * Renewals: each parcel after the first is a charge made on its date by the account's clock (a boleto
 * subscription's: its boleto issued LIMITS.billingSubscriptionBilletLeadDays before that date, its due date).
 * A subscription records the day its next renewal runs (`renews_on`), and one job per account and day
 * (`RENEWAL_TOPIC`, enqueued on the account's clock for midnight, Brasília, of that day, so `pixd clock advance`
 * and the sandbox's per-account clock move it with the account's other jobs) renews the subscriptions due by
 * then, a batch at a time (renewal-batch.ts: card renewals set-based; boleto renewals, and card renewals while a
 * card fault is asked for, one by one in the same transaction). Exactly once: a batch locks its subscriptions
 * and moves each past its parcel in the transaction that charges it, and the (subscription, parcel) primary key
 * refuses a second charge of a parcel whatever the outbox retries (outbox jobs run at least once).
 */
import { newNotificationToken, newPageToken } from '../shared/url-tokens.ts';
import { performance } from 'node:perf_hooks';
import type { Sql } from '../../platform/db/database.ts';
import { brasiliaDate, brasiliaDayStart } from '../../platform/calendar.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { BillingCaller } from '../shared/caller.ts';
import { issueBoleto } from '../boletos/issue.ts';
import { defineTopic, jobsEnqueued, type JobDeps } from '../../platform/outbox/jobs.ts';
import type { FaultHooks } from '../../platform/faults.ts';
import { answerCardPayment, grossTotal } from '../charges/payment.ts';
import { insertCharge, updateCharge, type ChargeRow } from '../charges/store.ts';
import { transition } from '../charges/transitions.ts';
import type { PlanRow } from '../plans/store.ts';
import {
  claimDueSubscriptions,
  dueSubscriptionsLeft,
  insertSubscriptionCharge,
  setRenewsOn,
  type BilletSubscriptionPayment,
  type SubscriptionRow,
} from './store.ts';
import { moveSubscription } from './transitions.ts';
import { addMonths, nextRenewal, parcelDate, renewalMessage, storedCardTerms } from './schedule.ts';
import { plansOf, renewCardBatch } from './renewal-batch.ts';
import { insertRenewalDayJobs } from './renewal-store.ts';

export { addMonths, parcelDate } from './schedule.ts';

/** The renewals of an account due by a day (account's clock, YYYY-MM-DD). */
export type RenewalDay = { accountId: number; date: string };

export type RenewalDeps = JobDeps & { faults?: FaultHooks; config: { publicUrl?: string }; pages: { url: string } };

/** A renewal left to another transaction that holds it (a second job of the day, an API call): looked at again. */
const LOCKED_RETRY_MS = 1_000;

export const RENEWAL_TOPIC = defineTopic<RenewalDay, RenewalDeps>({
  name: 'billing.subscription.renewals',
  handler: (deps) => async (job) => {
    const { left, sliceEnded } = await renewDueSubscriptions(deps, job.payload);
    if (!left) return { done: true };
    const now = deps.clock.forAccount(job.payload.accountId).nowMs();
    // A job's slice ended: the rest at once, after the worker's other jobs; else others hold them for now.
    return {
      retryAt: new Date(now + (sliceEnded ? 0 : LOCKED_RETRY_MS)),
      error: `${left} renovações por fazer${sliceEnded ? '' : ' (em outra transação)'}`,
    };
  },
});

/**
 * Renews the account's subscriptions due by the day, `batchSize` per transaction, until none is left to claim
 * or the job's slice (LIMITS.billingRenewalSliceMs) is spent: the worker's other jobs are not held up behind a
 * day of 10,000 renewals. A batch that fails is renewed one subscription per transaction, so one that cannot
 * be renewed does not hold back the rest; it is thrown at the end (the job is retried with its backoff).
 * Answers how many are still due (another transaction holds them, or the slice ended before them).
 */
export async function renewDueSubscriptions(
  deps: RenewalDeps,
  day: RenewalDay,
  batchSize: number = LIMITS.billingRenewalBatchSize,
): Promise<{ renewed: number; left: number; sliceEnded: boolean }> {
  const started = performance.now();
  const failed = new Map<number, unknown>();
  let renewed = 0;
  let sliceEnded = false;
  for (;;) {
    let claimed: number[] = [];
    try {
      renewed += await deps.db.tx((sql) =>
        renewBatch(sql, deps, day, batchSize, [...failed.keys()], (ids) => (claimed = ids)),
      );
    } catch (error) {
      if (!claimed.length) throw error;
      renewed += await renewEachAlone(deps, day, claimed, failed);
    }
    if (claimed.length < batchSize) break;
    if (performance.now() - started > LIMITS.billingRenewalSliceMs) {
      sliceEnded = true;
      break;
    }
  }
  if (failed.size)
    throw new Error(
      `renewals of subscriptions ${[...failed.keys()].join(', ')} failed: ${String((failed.values().next().value as Error)?.message)}`,
    );
  return { renewed, left: await dueSubscriptionsLeft(deps.db, day), sliceEnded };
}

/** One transaction: claims up to `limit` due subscriptions and renews them (cards set-based when it can). */
export async function renewBatch(
  sql: Sql,
  deps: RenewalDeps,
  day: RenewalDay,
  limit: number,
  except: number[],
  onClaim: (ids: number[]) => void,
): Promise<number> {
  const due = await claimDueSubscriptions(sql, { ...day, except }, limit);
  onClaim(due.map((s) => s.id));
  if (!due.length) return 0;
  const caller = callerOf(deps, day.accountId);
  const plans = await plansOf(sql, due);
  // A card fault counts its occurrences one charge at a time (docs/faults.md): those renewals go one by one.
  const batched = deps.faults?.active(day.accountId, 'cartao')
    ? []
    : due.filter((s) => s.payment?.method === 'credit_card');
  for (const s of due) if (!batched.includes(s)) await renew(sql, caller, s, plans.get(s.plan_id)!);
  const days = await renewCardBatch(
    sql,
    batched.map((subscription) => ({ subscription, plan: plans.get(subscription.plan_id)! })),
    caller.now,
  );
  if (days.length) await ensureRenewalDays(sql, day.accountId, days, caller.now);
  return due.length;
}

/** After a batch failed: each of its subscriptions in a transaction of its own; the ones that fail are kept. */
async function renewEachAlone(
  deps: RenewalDeps,
  day: RenewalDay,
  ids: number[],
  failed: Map<number, unknown>,
): Promise<number> {
  let renewed = 0;
  for (const id of ids) {
    try {
      renewed += await deps.db.tx(async (sql) => {
        const [s] = await claimDueSubscriptions(sql, { ...day, except: [], id }, 1);
        if (!s) return 0;
        await renew(sql, callerOf(deps, day.accountId), s, (await plansOf(sql, [s])).get(s.plan_id)!);
        return 1;
      });
    } catch (error) {
      failed.set(id, error);
    }
  }
  return renewed;
}

const callerOf = (deps: RenewalDeps, accountId: number): BillingCaller => ({
  accountId,
  now: deps.clock.forAccount(accountId).now(),
  faults: deps.faults,
  pagesUrl: deps.pages.url,
  publicUrl: deps.config.publicUrl,
});

/**
 * Schedules the renewal of `parcel`: the subscription renews on its day, and that day's job of the account
 * exists; null when the plan has no more.
 */
export async function scheduleRenewal(
  sql: Sql,
  subscription: SubscriptionRow,
  plan: PlanRow,
  parcel: number,
  now: Date,
): Promise<string | null> {
  const next = nextRenewal(subscription, plan, parcel);
  await setRenewsOn(sql, subscription.id, next?.day ?? null);
  if (next) await ensureRenewalDays(sql, subscription.account_id, [next.day], now);
  return next?.date ?? null;
}

/**
 * The account's job of each day (at its midnight, Brasília, on the account's clock), unless one is pending and
 * not running: a running job may have looked already, so another follows it (and finds nothing, or what it
 * missed); two made at once by concurrent transactions share the day's renewals (they skip each other's locks).
 */
export async function ensureRenewalDays(sql: Sql, accountId: number, days: string[], now: Date): Promise<void> {
  await insertRenewalDayJobs(sql, RENEWAL_TOPIC.name, accountId, days, days.map(brasiliaDayStart), now);
  jobsEnqueued(sql, RENEWAL_TOPIC);
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
      notification_token: newNotificationToken(),
      checkout_token: newPageToken(),
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
  const { payment, totalCents } = storedCardTerms(subscription);
  await transition(sql, charge, 'new', 'waiting', now, { changes: { payment, total_cents: totalCents } });
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

/** One subscription's next parcel, statement by statement (boletos; cards while a card fault is asked for). */
async function renew(sql: Sql, caller: BillingCaller, subscription: SubscriptionRow, plan: PlanRow) {
  const { now } = caller;
  const parcel = subscription.occurrences + 1;
  const charge = await subscriptionCharge(sql, subscription, parcel, now);
  if (subscription.payment?.method === 'banking_billet')
    await issueRenewalBoleto(sql, caller, subscription, plan, charge, parcel);
  else await chargeStoredCard(sql, subscription, charge, now, caller.faults);
  const next = await scheduleRenewal(sql, subscription, plan, parcel + 1, now);
  await moveSubscription(sql, subscription, next ? 'new_charge' : 'expired', now, {
    changes: { occurrences: parcel, next_execution: next },
    message: renewalMessage(parcel, charge.id),
  });
}
