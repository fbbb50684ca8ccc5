/**
 * A card subscription's trial (`trial_days`, card only, as the SDK's JSDoc has it): the card is checked and its
 * token spent at once, the subscription is `active`, and its first charge stays `new` until the trial's last
 * day has passed on the account's clock. Then a job (one per subscription, on the account's clock like the
 * renewals) charges it with the stored card and schedules parcel 2 an interval after that day; renewals go on
 * from there. A subscription cancelled during its trial is never charged (docs/billing.md, "Trials").
 */
import type { Sql } from '../../platform/db/database.ts';
import { brasiliaDate, brasiliaDayStart, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import { defineTopic, enqueue, type JobDeps } from '../../platform/outbox/jobs.ts';
import type { FaultHooks } from '../../platform/faults.ts';
import type { BillingCaller } from '../shared/caller.ts';
import type { CreditCardInput } from '../charges/schemas.ts';
import { cardPaymentRecord } from '../charges/payment.ts';
import { lockCharge, type ChargeRow } from '../charges/store.ts';
import { findPlanById, type PlanRow } from '../plans/store.ts';
import { chargeStoredCard, scheduleRenewal } from './renewal.ts';
import { activate } from './activation.ts';
import {
  chargesOfSubscription,
  insertSubscriptionHistory,
  lockSubscription,
  updateSubscription,
  type SubscriptionRow,
} from './store.ts';

type TrialJob = { subscriptionId: number };

export const TRIAL_END_TOPIC = defineTopic<TrialJob, JobDeps & { faults?: FaultHooks }>({
  name: 'billing.subscription.trial_end',
  handler:
    ({ db, clock, faults }) =>
    async (job) => {
      await db.tx(async (sql) => {
        const subscription = await lockSubscription(sql, { id: job.payload.subscriptionId });
        if (subscription) await endTrial(sql, subscription, clock.forAccount(subscription.account_id).now(), faults);
      });
      return { done: true };
    },
});

const dayMonthYear = (date: string) => date.split('-').reverse().join('/');

/** new → active with the card kept and parcel 1 (`charge`, still new) due when the trial ends. */
export async function startTrial(
  sql: Sql,
  caller: BillingCaller,
  subscription: SubscriptionRow,
  charge: ChargeRow,
  card: CreditCardInput,
  trialDays: number,
): Promise<PlanRow> {
  const { payment } = await cardPaymentRecord(sql, charge, card, caller.now);
  const firstExecution = fromEpochDay(toEpochDay(brasiliaDate(caller.now)) + trialDays);
  await enqueue(sql, {
    topic: TRIAL_END_TOPIC,
    payload: { subscriptionId: subscription.id },
    accountId: subscription.account_id,
    availableAt: brasiliaDayStart(firstExecution),
    now: caller.now,
  });
  return activate(
    sql,
    subscription,
    caller.now,
    { firstExecution, payment, trial: true },
    `Período de teste de ${trialDays} dias: a primeira cobrança será em ${dayMonthYear(firstExecution)}.`,
  );
}

/**
 * The trial's end, acted on once (while next_execution is still the trial's last day): parcel 1 charged with the
 * stored card unless it was paid some other way meanwhile, and parcel 2 scheduled either way.
 */
async function endTrial(sql: Sql, subscription: SubscriptionRow, now: Date, faults?: FaultHooks): Promise<void> {
  if (subscription.status !== 'active' || subscription.next_execution !== subscription.first_execution) return;
  const [first] = await chargesOfSubscription(sql, subscription.id);
  const charge = (await lockCharge(sql, { id: first.charge_id }))!;
  if (charge.status === 'new') await chargeStoredCard(sql, subscription, charge, now, faults);
  const plan = (await findPlanById(sql, subscription.plan_id))!;
  const next = await scheduleRenewal(sql, subscription, plan, 2, now);
  await updateSubscription(sql, subscription.id, { next_execution: next }, now);
  await insertSubscriptionHistory(
    sql,
    subscription.id,
    { message: `Período de teste encerrado: primeira cobrança (cobrança ${charge.id}) ${charge.status}.` },
    now,
  );
}
