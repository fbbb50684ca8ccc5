/** The one place a subscription changes status: checked against the table, written to its history. */
import type { Sql } from '../../platform/db/database.ts';
import { billingError } from '../shared/errors.ts';
import {
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

export async function moveSubscription(
  sql: Sql,
  subscription: SubscriptionRow,
  to: SubscriptionStatus,
  now: Date,
  extra: { changes?: Parameters<typeof updateSubscription>[2]; message?: string } = {},
): Promise<void> {
  if (!TRANSITIONS[subscription.status].includes(to))
    throw billingError(
      400,
      'invalid_subscription_status',
      `A assinatura está em ${subscription.status} e não pode passar para ${to}.`,
    );
  await updateSubscription(sql, subscription.id, { status: to, ...extra.changes }, now);
  Object.assign(subscription, { status: to, ...extra.changes });
  await insertSubscriptionHistory(
    sql,
    subscription.id,
    { status: to, message: extra.message ? `${MESSAGES[to]} ${extra.message}` : MESSAGES[to] },
    now,
  );
}

export const recordCreation = (sql: Sql, subscription: SubscriptionRow, now: Date) =>
  insertSubscriptionHistory(sql, subscription.id, { status: 'new', message: MESSAGES.new }, now);
