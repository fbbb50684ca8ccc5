/** SQL of card charges, their history and refunds. */
import type { Sql } from '../../platform/db/database.ts';
import { entriesCtes } from '../../platform/ledger/ledger.ts';
import { jobRowsInsertSql, jobRowsParams, type JobRow } from '../../platform/outbox/jobs.ts';
import type { ItemInput, ShippingInput } from './schemas.ts';

export type ChargeStatus =
  | 'new'
  /** A payment link was made for it: the payer chooses how to pay on its page. */
  | 'link'
  | 'waiting'
  | 'approved'
  | 'paid'
  | 'unpaid'
  | 'partially_refunded'
  | 'refunded'
  | 'canceled'
  // Boletos: marked paid by hand (settleCharge).
  | 'settled'
  // Carnês (the carnet row): parcels open, some parcel unpaid, every parcel paid or settled.
  | 'active'
  | 'finished';

/** A carnê's own record (its row's `payment`): how it was asked for. */
export interface CarnetRecord {
  method: 'carnet';
  repeats: number;
  split_items: boolean;
}

/** A boleto's payment record (src/billing/boletos): what it was issued with beyond its boleto row. */
export interface BoletoPaymentRecord {
  method: 'banking_billet';
  customer: Record<string, unknown>;
  juridical_person: boolean;
  discount_cents: number;
  message: string | null;
}

export interface CardPaymentRecord {
  method: 'credit_card';
  installments: number;
  installment_value: number;
  brand: string;
  card_mask: string;
  /** SHA-256 of the payment token: the job that authorises reads the card's vault entry through it. */
  token_ref: string;
  customer: Record<string, unknown>;
  juridical_person: boolean;
  billing_address: Record<string, unknown> | null;
  discount_cents: number;
  message: string | null;
}

export interface ChargeRow {
  id: number;
  account_id: number;
  status: ChargeStatus;
  total_cents: number;
  items: ItemInput[];
  shippings: ShippingInput[];
  custom_id: string | null;
  notification_url: string | null;
  notification_token: string;
  notification_generation: number;
  notification_queried_event: number;
  checkout_token: string;
  marketplace: boolean;
  recurrent: boolean;
  payment: CardPaymentRecord | BoletoPaymentRecord | CarnetRecord | null;
  /** 'carnet': the carnê itself (src/billing/carnets); its parcels are charges with `carnet_id`. */
  kind: 'charge' | 'carnet';
  carnet_id: number | null;
  parcel: number | null;
  paid_cents: number | null;
  refusal_reason: string | null;
  refusal_retry: boolean | null;
  approved_at: Date | null;
  paid_at: Date | null;
  refunded_cents: number;
  created_at: Date;
}

const COLUMNS = `id, account_id, status, total_cents, items, shippings, custom_id, notification_url, notification_token, notification_generation,
  notification_queried_event, checkout_token, marketplace, recurrent, payment, paid_cents, refusal_reason, refusal_retry, approved_at, paid_at,
  refunded_cents, created_at, kind, carnet_id, parcel`;

export async function insertCharge(
  sql: Sql,
  c: Pick<
    ChargeRow,
    | 'account_id'
    | 'status'
    | 'total_cents'
    | 'items'
    | 'shippings'
    | 'custom_id'
    | 'notification_url'
    | 'notification_token'
    | 'checkout_token'
    | 'marketplace'
  > &
    Partial<Pick<ChargeRow, 'kind' | 'carnet_id' | 'parcel'>>,
  now: Date,
): Promise<ChargeRow> {
  const { rows } = await sql.query<ChargeRow>(
    `insert into billing_charges (account_id, status, total_cents, items, shippings, custom_id, notification_url, notification_token, checkout_token, marketplace, created_at, updated_at, kind, carnet_id, parcel)
     values ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $10, $11, $11, $12, $13, $14) returning ${COLUMNS}`,
    [
      c.account_id,
      c.status,
      c.total_cents,
      JSON.stringify(c.items),
      JSON.stringify(c.shippings),
      c.custom_id,
      c.notification_url,
      c.notification_token,
      c.checkout_token,
      c.marketplace,
      now,
      c.kind ?? 'charge',
      c.carnet_id ?? null,
      c.parcel ?? null,
    ],
  );
  return rows[0];
}

/**
 * The charge (or, with kind 'carnet', the carnê), locked for the rest of the transaction (every state change goes
 * through here). Without an account (jobs) either kind is found.
 */
export async function lockCharge(
  sql: Sql,
  where: { id: number; accountId?: number; kind?: ChargeRow['kind'] },
): Promise<ChargeRow | undefined> {
  const kind = where.kind ?? (where.accountId === undefined ? null : 'charge');
  const { rows } = await sql.query<ChargeRow>(
    `select ${COLUMNS} from billing_charges where id = $1 and ($2::bigint is null or account_id = $2)
       and ($3::text is null or kind = $3) for update`,
    [where.id, where.accountId ?? null, kind],
  );
  return rows[0];
}

/** Charges by id, locked in id order for the rest of the transaction (a batch of confirmations). */
export async function lockCharges(sql: Sql, ids: number[]): Promise<ChargeRow[]> {
  const { rows } = await sql.query<ChargeRow>(
    `select ${COLUMNS} from billing_charges where id = any($1) order by id for update`,
    [ids],
  );
  return rows;
}

/** A charge or carnê row; `kind` narrows it (the charge routes ask for 'charge', the carnê routes for 'carnet'). */
export async function findCharge(
  sql: Sql,
  where: {
    id?: number;
    accountId?: number;
    notificationToken?: string;
    checkoutToken?: string;
    kind?: ChargeRow['kind'];
  },
): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(
    `select ${COLUMNS} from billing_charges where ($1::bigint is null or id = $1) and ($2::bigint is null or account_id = $2)
       and ($3::text is null or notification_token = $3) and ($4::text is null or checkout_token = $4)
       and ($5::text is null or kind = $5)`,
    [
      where.id ?? null,
      where.accountId ?? null,
      where.notificationToken ?? null,
      where.checkoutToken ?? null,
      where.kind ?? null,
    ],
  );
  return rows[0];
}

/** The parcels of a carnê, by parcel number. */
export async function parcelsOf(sql: Sql, carnetId: number, options: { lock?: boolean } = {}): Promise<ChargeRow[]> {
  const { rows } = await sql.query<ChargeRow>(
    `select ${COLUMNS} from billing_charges where carnet_id = $1 order by parcel${options.lock ? ' for update' : ''}`,
    [carnetId],
  );
  return rows;
}

/** Writes the changed columns of a charge. */
export async function updateCharge(
  sql: Sql,
  id: number,
  changes: Partial<Omit<ChargeRow, 'id' | 'account_id'>>,
  now: Date,
): Promise<void> {
  const entries = Object.entries(changes);
  const sets = entries.map(([column, value], i) => `${column} = $${i + 3}${column === 'payment' ? '::jsonb' : ''}`);
  const values = entries.map(([column, value]) =>
    column === 'payment' && value !== null ? JSON.stringify(value) : value,
  );
  await sql.query(
    `update billing_charges set updated_at = $2${sets.length ? ', ' + sets.join(', ') : ''} where id = $1`,
    [id, now, ...values],
  );
}

export interface HistoryRow {
  event_id: number | null;
  subject_charge_id: number | null;
  /** A subscription's own status event, in the history of its first charge (type subscription). */
  subject_subscription_id: number | null;
  status: string | null;
  previous_status: string | null;
  message: string;
  value_cents: number | null;
  received_by_bank_at: Date | null;
  created_at: Date;
}

/** A history entry; with `status` it is also the next status event (ids 1, 2, ... per charge). Returns the event id. */
export async function insertHistory(
  sql: Sql,
  chargeId: number,
  entry: {
    message: string;
    status?: string;
    previous?: string | null;
    valueCents?: number;
    receivedByBankAt?: Date;
    /** A carnê's event about one of its parcels (type carnet_charge). */
    subjectChargeId?: number;
    subjectSubscriptionId?: number;
  },
  now: Date,
): Promise<number | null> {
  const { rows } = await sql.query<{ event_id: number | null }>(
    `insert into billing_history (charge_id, event_id, status, previous_status, message, value_cents, received_by_bank_at, created_at, subject_charge_id, subject_subscription_id)
     values ($1, case when $2::text is null then null else
       (select coalesce(max(event_id), 0) + 1 from billing_history where charge_id = $1) end, $2, $3, $4, $5, $6, $7, $8, $9)
     returning event_id`,
    [
      chargeId,
      entry.status ?? null,
      entry.previous ?? null,
      entry.message,
      entry.valueCents ?? null,
      entry.receivedByBankAt ?? null,
      now,
      entry.subjectChargeId ?? null,
      entry.subjectSubscriptionId ?? null,
    ],
  );
  return rows[0].event_id;
}

export async function historyOf(
  sql: Sql,
  chargeId: number,
  options: { eventsSince?: Date } = {},
): Promise<HistoryRow[]> {
  const { rows } = await sql.query<HistoryRow>(
    `select event_id, subject_charge_id, subject_subscription_id, status, previous_status, message, value_cents, received_by_bank_at, created_at from billing_history
     where charge_id = $1 and ($2::timestamptz is null or (event_id is not null and created_at >= $2)) order by id`,
    [chargeId, options.eventsSince ?? null],
  );
  return rows;
}

export async function lastEventId(sql: Sql, chargeId: number): Promise<number> {
  const { rows } = await sql.query<{ last: number }>(
    'select coalesce(max(event_id), 0)::int as last from billing_history where charge_id = $1',
    [chargeId],
  );
  return rows[0].last;
}

export interface RefundRow {
  id: number;
  charge_id: number;
  amount_cents: number;
  partial: boolean;
  status: 'processing' | 'done';
  created_at: Date;
}

export async function refundsOf(sql: Sql, chargeId: number): Promise<RefundRow[]> {
  const { rows } = await sql.query<RefundRow>(
    'select id, charge_id, amount_cents, partial, status, created_at from billing_refunds where charge_id = $1 order by id',
    [chargeId],
  );
  return rows;
}

export async function insertRefund(
  sql: Sql,
  r: { chargeId: number; amountCents: number; partial: boolean },
  now: Date,
): Promise<number> {
  const { rows } = await sql.query<{ id: number }>(
    `insert into billing_refunds (charge_id, amount_cents, partial, status, created_at) values ($1, $2, $3, 'processing', $4) returning id`,
    [r.chargeId, r.amountCents, r.partial, now],
  );
  return rows[0].id;
}

export async function finishRefund(sql: Sql, refundId: number, now: Date): Promise<RefundRow | undefined> {
  const { rows } = await sql.query<RefundRow>(
    `update billing_refunds set status = 'done', done_at = $2 where id = $1 and status = 'processing' returning id, charge_id, amount_cents, partial, status, created_at`,
    [refundId, now],
  );
  return rows[0];
}

/** Accounts of this service by payee_code (marketplace and shipping payees). */
export async function accountsByPayeeCode(sql: Sql, codes: string[]): Promise<Map<string, number>> {
  if (!codes.length) return new Map();
  const { rows } = await sql.query<{ id: number; payee_code: string }>(
    'select id, payee_code from accounts where payee_code = any($1)',
    [codes],
  );
  return new Map(rows.map((r) => [r.payee_code, r.id]));
}

/** The account's card charges, newest first, before a charge id (keyset; the console's list). */
export async function chargePageBefore(
  sql: Sql,
  accountId: number,
  beforeId: number | undefined,
  limit: number,
): Promise<{ rows: ChargeRow[]; more: boolean }> {
  const { rows } = await sql.query<ChargeRow>(
    `select ${COLUMNS} from billing_charges where account_id = $1 and kind = 'charge' and ($2::bigint is null or id < $2)
      order by id desc limit $3`,
    [accountId, beforeId ?? null, limit + 1],
  );
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

/**
 * approved → paid of a batch of one account's card charges in one statement (confirmations.ts): each charge's
 * payment (acquirer → seller) and fee (seller → fees) entries, the posted totals, the status, its history event
 * and the notification jobs.
 */
export async function markConfirmedPaid(
  sql: Sql,
  p: {
    accountId: number;
    rows: { chargeId: number; paidCents: number; feeCents: number; generation: number }[];
    ledger: { card: number; seller: number; fees: number };
    message: string;
    jobs: JobRow[];
    now: Date;
  },
): Promise<void> {
  await sql.query(
    `with input as (select * from unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::int[])
                     as t(charge_id, paid, fee, generation)),
       postings as (
         select p.kind, 'billing_charge:' || i.charge_id as reference, p.ledger_account_id, p.amount_cents from input i,
           lateral (values ('billing_card_payment', $6::bigint, -i.paid), ('billing_card_payment', $7::bigint, i.paid),
                           ('billing_card_fee', $7::bigint, -i.fee), ('billing_card_fee', $8::bigint, i.fee))
             as p(kind, ledger_account_id, amount_cents)
          where i.fee > 0 or p.kind = 'billing_card_payment'),
       ${entriesCtes({ postings: 'postings', accountId: '$1::bigint', at: '$9::timestamptz' })},
       paid as (update billing_charges c set status = 'paid', paid_at = $9, paid_cents = i.paid,
           notification_generation = i.generation, updated_at = $9
         from input i where c.id = i.charge_id),
       events as (insert into billing_history (charge_id, event_id, status, previous_status, message, value_cents,
           received_by_bank_at, created_at)
         select i.charge_id, (select coalesce(max(h.event_id), 0) + 1 from billing_history h where h.charge_id = i.charge_id),
           'paid', 'approved', $10, i.paid, $9, $9 from input i),
       jobs as (${jobRowsInsertSql(11, '$1::bigint', '$9')})
     select 1`,
    [
      p.accountId,
      p.rows.map((r) => r.chargeId),
      p.rows.map((r) => r.paidCents),
      p.rows.map((r) => r.feeCents),
      p.rows.map((r) => r.generation),
      p.ledger.card,
      p.ledger.seller,
      p.ledger.fees,
      p.now,
      p.message,
      ...jobRowsParams(p.jobs),
    ],
  );
}
