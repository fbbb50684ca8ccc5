/** SQL of subscriptions, their charges (one row per parcel) and their history. */
import type { Sql } from '../../platform/db/database.ts';
import type { ItemInput, ShippingInput } from '../charges/schemas.ts';
import type { CardPaymentRecord } from '../charges/store.ts';
import type { BankingBilletInput } from '../boletos/schemas.ts';

/** A boleto subscription: the first boleto's terms, each renewal's boleto issued with them (due date moved). */
export interface BilletSubscriptionPayment {
  method: 'banking_billet';
  billet: BankingBilletInput;
}

export type SubscriptionStatus = 'new' | 'active' | 'new_charge' | 'canceled' | 'expired';

export interface SubscriptionRow {
  id: number;
  account_id: number;
  plan_id: number;
  status: SubscriptionStatus;
  items: ItemInput[];
  shippings: ShippingInput[];
  custom_id: string | null;
  notification_url: string | null;
  payment: CardPaymentRecord | BilletSubscriptionPayment | null;
  first_execution: string | null;
  occurrences: number;
  next_execution: string | null;
  link_token: string | null;
  created_at: Date;
}

const COLUMNS = `id, account_id, plan_id, status, items, shippings, custom_id, notification_url, payment,
  to_char(first_execution, 'YYYY-MM-DD') as first_execution, occurrences, to_char(next_execution, 'YYYY-MM-DD') as next_execution,
  link_token, created_at`;

export async function insertSubscription(
  sql: Sql,
  s: Pick<
    SubscriptionRow,
    'account_id' | 'plan_id' | 'items' | 'shippings' | 'custom_id' | 'notification_url' | 'link_token'
  >,
  now: Date,
): Promise<SubscriptionRow> {
  const { rows } = await sql.query<SubscriptionRow>(
    `insert into billing_subscriptions (account_id, plan_id, status, items, shippings, custom_id, notification_url, link_token, created_at, updated_at)
     values ($1, $2, 'new', $3::jsonb, $4::jsonb, $5, $6, $7, $8, $8) returning ${COLUMNS}`,
    [
      s.account_id,
      s.plan_id,
      JSON.stringify(s.items),
      JSON.stringify(s.shippings),
      s.custom_id,
      s.notification_url,
      s.link_token,
      now,
    ],
  );
  return rows[0];
}

export async function lockSubscription(
  sql: Sql,
  where: { id: number; accountId?: number },
): Promise<SubscriptionRow | undefined> {
  const { rows } = await sql.query<SubscriptionRow>(
    `select ${COLUMNS} from billing_subscriptions where id = $1 and ($2::bigint is null or account_id = $2) for update`,
    [where.id, where.accountId ?? null],
  );
  return rows[0];
}

/**
 * Up to `limit` subscriptions of the account whose next renewal runs by `date` (account's clock), locked; rows
 * another transaction holds are skipped (a second job of the same day renews them), as are `except`; `id`: that one only.
 */
export async function claimDueSubscriptions(
  sql: Sql,
  where: { accountId: number; date: string; except: number[]; id?: number },
  limit: number,
): Promise<SubscriptionRow[]> {
  const { rows } = await sql.query<SubscriptionRow>(
    `with due as (
       select id from billing_subscriptions where account_id = $1 and status in ('active', 'new_charge')
         and renews_on <= $2::date and id <> all($3::bigint[]) and ($5::bigint is null or id = $5)
         order by id limit $4 for update skip locked)
     select ${COLUMNS} from billing_subscriptions where id in (select id from due) order by id`,
    [where.accountId, where.date, where.except, limit, where.id ?? null],
  );
  return rows;
}

/** How many of the account's subscriptions still renew by `date` (locked or not). */
export async function dueSubscriptionsLeft(sql: Sql, where: { accountId: number; date: string }): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from billing_subscriptions where account_id = $1 and status in ('active', 'new_charge')
       and renews_on <= $2::date`,
    [where.accountId, where.date],
  );
  return rows[0].n;
}

/** The day (account's clock) the subscription's next renewal runs; null: none will. */
export async function setRenewsOn(sql: Sql, id: number, day: string | null): Promise<void> {
  await sql.query('update billing_subscriptions set renews_on = $2::date where id = $1', [id, day]);
}

export async function findSubscription(
  sql: Sql,
  where: { id?: number; accountId?: number; chargeId?: number },
): Promise<SubscriptionRow | undefined> {
  const { rows } = await sql.query<SubscriptionRow>(
    `select ${COLUMNS} from billing_subscriptions where ($1::bigint is null or id = $1) and ($2::bigint is null or account_id = $2)
       and ($3::bigint is null or id = (select subscription_id from billing_subscription_charges where charge_id = $3))`,
    [where.id ?? null, where.accountId ?? null, where.chargeId ?? null],
  );
  return rows[0];
}

/** Writes the changed columns of a subscription (jsonb columns serialised). */
export async function updateSubscription(
  sql: Sql,
  id: number,
  changes: Partial<Omit<SubscriptionRow, 'id' | 'account_id' | 'created_at'>>,
  now: Date,
): Promise<void> {
  const json = new Set(['items', 'shippings', 'payment']);
  const entries = Object.entries(changes);
  const sets = entries.map(([column], i) => `${column} = $${i + 3}${json.has(column) ? '::jsonb' : ''}`);
  const values = entries.map(([column, value]) => (json.has(column) && value !== null ? JSON.stringify(value) : value));
  await sql.query(
    `update billing_subscriptions set updated_at = $2${sets.map((s) => ', ' + s).join('')} where id = $1`,
    [id, now, ...values],
  );
}

/** The parcel's charge; false when that parcel already has one (a renewal retried after it committed). */
export async function insertSubscriptionCharge(
  sql: Sql,
  subscriptionId: number,
  parcel: number,
  chargeId: number,
): Promise<void> {
  await sql.query('insert into billing_subscription_charges (subscription_id, parcel, charge_id) values ($1, $2, $3)', [
    subscriptionId,
    parcel,
    chargeId,
  ]);
}

export interface SubscriptionChargeRow {
  parcel: number;
  charge_id: number;
  status: string;
  total_cents: number;
  created_at: Date;
}

export async function chargesOfSubscription(sql: Sql, subscriptionId: number): Promise<SubscriptionChargeRow[]> {
  const { rows } = await sql.query<SubscriptionChargeRow>(
    `select s.parcel, s.charge_id, c.status, c.total_cents, c.created_at from billing_subscription_charges s
       join billing_charges c on c.id = s.charge_id where s.subscription_id = $1 order by s.parcel`,
    [subscriptionId],
  );
  return rows;
}

export async function insertSubscriptionHistory(
  sql: Sql,
  subscriptionId: number,
  entry: { status?: SubscriptionStatus; message: string },
  now: Date,
): Promise<void> {
  await sql.query(
    'insert into billing_subscription_history (subscription_id, status, message, created_at) values ($1, $2, $3, $4)',
    [subscriptionId, entry.status ?? null, entry.message, now],
  );
}

export async function subscriptionHistoryOf(
  sql: Sql,
  subscriptionId: number,
): Promise<{ status: string | null; message: string; created_at: Date }[]> {
  const { rows } = await sql.query<{ status: string | null; message: string; created_at: Date }>(
    'select status, message, created_at from billing_subscription_history where subscription_id = $1 order by id',
    [subscriptionId],
  );
  return rows;
}

/** The account's subscriptions, newest first (the console). */
export async function subscriptionsOf(sql: Sql, accountId: number, limit: number): Promise<SubscriptionRow[]> {
  const { rows } = await sql.query<SubscriptionRow>(
    `select ${COLUMNS} from billing_subscriptions where account_id = $1 order by id desc limit $2`,
    [accountId, limit],
  );
  return rows;
}
