/**
 * The one place a subscription changes status: checked against the table, written to its history and notified
 * as a `subscription` event on its first charge's token (docs/billing.md, "Subscription notifications").
 */
import type { Sql } from '../../platform/db/database.ts';
import { billingError } from '../shared/errors.ts';
import { insertHistory, lockCharge } from '../charges/store.ts';
import { enqueueNotification } from '../notifications/delivery.ts';
import {
  chargesOfSubscription,
  insertSubscriptionHistory,
  updateSubscription,
  type SubscriptionRow,
  type SubscriptionStatus,
} from './store.ts';

const TRANSITIONS: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
  new: ['active', 'canceled'],
  active: ['new_charge', 'canceled', 'expired'],
  // Each renewal is a new_charge event, also from new_charge.
  new_charge: ['new_charge', 'canceled', 'expired'],
  canceled: [],
  expired: [],
};

const MESSAGES: Record<SubscriptionStatus, string> = {
  new: 'Assinatura criada.',
  active: 'Assinatura ativa.',
  new_charge: 'Nova cobrança da assinatura.',
  canceled: 'Assinatura cancelada.',
  expired: 'Assinatura encerrada: todas as cobranças do plano foram geradas.',
};

/** Refuses a move the table does not allow (every move checks, one by one or a renewal batch's rows). */
export function assertMove(from: SubscriptionStatus, to: SubscriptionStatus): void {
  if (!TRANSITIONS[from].includes(to))
    throw billingError(
      400,
      'invalid_subscription_status',
      `A assinatura está em ${from} e não pode passar para ${to}.`,
    );
}

/** The history and event message of a move to `to`, with what happened. */
export const moveMessage = (to: SubscriptionStatus, detail?: string) =>
  detail ? `${MESSAGES[to]} ${detail}` : MESSAGES[to];

export async function moveSubscription(
  sql: Sql,
  subscription: SubscriptionRow,
  to: SubscriptionStatus,
  now: Date,
  extra: { changes?: Parameters<typeof updateSubscription>[2]; message?: string } = {},
): Promise<void> {
  assertMove(subscription.status, to);
  const previous = subscription.status;
  await updateSubscription(sql, subscription.id, { status: to, ...extra.changes }, now);
  Object.assign(subscription, { status: to, ...extra.changes });
  const message = moveMessage(to, extra.message);
  await insertSubscriptionHistory(sql, subscription.id, { status: to, message }, now);
  await subscriptionEvent(sql, subscription, to, previous, message, now);
}

/** Once its first charge exists: the subscription's first event (new). */
export async function recordCreation(sql: Sql, subscription: SubscriptionRow, now: Date): Promise<void> {
  await insertSubscriptionHistory(sql, subscription.id, { status: 'new', message: MESSAGES.new }, now);
  await subscriptionEvent(sql, subscription, 'new', null, MESSAGES.new, now);
}

/**
 * The subscription's status event, the next of its first charge's token (locked after the subscription, the
 * order every subscription path takes), and that token notified when
 * the charge has a notification_url (the subscription's when it was made).
 */
async function subscriptionEvent(
  sql: Sql,
  subscription: SubscriptionRow,
  status: SubscriptionStatus,
  previous: SubscriptionStatus | null,
  message: string,
  now: Date,
): Promise<void> {
  const first = (await chargesOfSubscription(sql, subscription.id)).find((c) => c.parcel === 1);
  if (!first) throw new Error(`subscription ${subscription.id} has no first charge`);
  const charge = (await lockCharge(sql, { id: first.charge_id }))!;
  await insertHistory(sql, charge.id, { status, previous, message, subjectSubscriptionId: subscription.id }, now);
  await enqueueNotification(sql, charge, now);
}
