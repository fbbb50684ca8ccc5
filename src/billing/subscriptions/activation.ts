/**
 * new → active, the one way a subscription starts: how its renewals are paid kept (a card's vault reference or
 * a boleto's terms), its first execution fixed and what comes next scheduled. Shared by the API's payment, the
 * link page (card or boleto) and the trial.
 */
import type { Sql } from '../../platform/db/database.ts';
import { findPlanById, type PlanRow } from '../plans/store.ts';
import { scheduleRenewal } from './renewal.ts';
import type { SubscriptionRow } from './store.ts';
import { moveSubscription } from './transitions.ts';

export interface Activation {
  /** Brasília date of parcel 1: a card's payment day, a boleto's due date, or the day a trial ends. */
  firstExecution: string;
  payment: NonNullable<SubscriptionRow['payment']>;
  /** A trial: parcel 1 is charged on firstExecution (trial.ts schedules it), parcel 2 only after that. */
  trial?: boolean;
}

export async function activate(
  sql: Sql,
  subscription: SubscriptionRow,
  now: Date,
  start: Activation,
  message?: string,
): Promise<PlanRow> {
  const plan = (await findPlanById(sql, subscription.plan_id))!;
  subscription.first_execution = start.firstExecution;
  subscription.payment = start.payment;
  const next = start.trial ? start.firstExecution : await scheduleRenewal(sql, subscription, plan, 2, now);
  await moveSubscription(sql, subscription, 'active', now, {
    changes: {
      payment: start.payment,
      first_execution: subscription.first_execution,
      occurrences: 1,
      next_execution: next,
    },
    ...(message && { message }),
  });
  return plan;
}
