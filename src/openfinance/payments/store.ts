/** SQL of automatic payments. */
import type { Sql } from '../../platform/db/database.ts';
import type { PaymentStatus } from '../shared.ts';

export interface PaymentRow {
  id: number;
  enrolment_id: number;
  account_id: number;
  end_to_end_id: string;
  amount_cents: number;
  /** YYYY-MM-DD. */
  data: string;
  period: number;
  info_pagador: string | null;
  codigo_cidade_ibge: string | null;
  status: PaymentStatus;
  motivo: string | null;
  /** When its payer's institution was asked to pay it (../settle.ts): from then on only the answer moves it. */
  payer_asked_at: Date | null;
  idempotency_key: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The row's columns, each qualified with `t` (a table alias and its dot) when a query joins. */
const columns = (t = '') =>
  `${t}id, ${t}enrolment_id, ${t}account_id, ${t}end_to_end_id, ${t}amount_cents::float8 as amount_cents,
  to_char(${t}data, 'YYYY-MM-DD') as data, ${t}period, ${t}info_pagador, ${t}codigo_cidade_ibge, ${t}status,
  ${t}motivo, ${t}payer_asked_at, ${t}idempotency_key, ${t}created_at, ${t}updated_at`;
const COLUMNS = columns();

/** Undefined when the account already made a payment under the same idempotency key (see insertEnrolment). */
export async function insertPayment(
  sql: Sql,
  row: Omit<PaymentRow, 'id' | 'status' | 'motivo' | 'payer_asked_at' | 'updated_at'>,
): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>(
    `insert into of_payments (enrolment_id, account_id, end_to_end_id, amount_cents, data, period, info_pagador,
       codigo_cidade_ibge, status, idempotency_key, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, 'pendente', $9, $10, $10)
     on conflict (account_id, idempotency_key) do nothing returning ${COLUMNS}`,
    [
      row.enrolment_id,
      row.account_id,
      row.end_to_end_id,
      row.amount_cents,
      row.data,
      row.period,
      row.info_pagador,
      row.codigo_cidade_ibge,
      row.idempotency_key,
      row.created_at,
    ],
  );
  return rows[0];
}

export async function findPayment(
  sql: Sql,
  by: { id: number } | { enrolmentId: number; endToEndId: string } | { accountId: number; idempotencyKey: string },
  lock = false,
): Promise<PaymentRow | undefined> {
  const [where, params] =
    'id' in by
      ? ['id = $1', [by.id]]
      : 'idempotencyKey' in by
        ? ['account_id = $1 and idempotency_key = $2', [by.accountId, by.idempotencyKey]]
        : ['enrolment_id = $1 and end_to_end_id = $2', [by.enrolmentId, by.endToEndId]];
  const { rows } = await sql.query<PaymentRow>(
    `select ${COLUMNS} from of_payments where ${where}${lock ? ' for update' : ''}`,
    params,
  );
  return rows[0];
}

/** The payment's payer's institution is asked to pay it (the first time: a second settlement keeps the instant). */
export async function markPaymentAsked(sql: Sql, id: number, now: Date): Promise<void> {
  await sql.query('update of_payments set payer_asked_at = coalesce(payer_asked_at, $2) where id = $1', [id, now]);
}

export async function setPaymentStatus(sql: Sql, id: number, status: PaymentStatus, motivo: string | null, now: Date) {
  const { rows } = await sql.query<PaymentRow>(
    `update of_payments set status = $2, motivo = $3, updated_at = $4 where id = $1 returning ${COLUMNS}`,
    [id, status, motivo, now],
  );
  return rows[0];
}

export interface PaymentFilter {
  accountId: number;
  /** One enrolment's payments; absent: every enrolment of the account. */
  enrolmentId?: number;
  endToEndId?: string;
  status?: string;
  inicio?: string;
  fim?: string;
}

/** A payment with the enrolment it belongs to (a list may span the account's enrolments). */
export interface ListedPaymentRow extends PaymentRow {
  identificador: string;
  id_proprio: string | null;
}

/**
 * The account's payments matching the filter, oldest first. Reached through the account's enrolments
 * (`of_enrolments_page`, then `of_payments_enrolment` per enrolment), so a list costs what the account holds,
 * never a scan of every account's payments.
 */
export async function listPayments(sql: Sql, f: PaymentFilter, limit: number): Promise<ListedPaymentRow[]> {
  const params: unknown[] = [f.accountId];
  const clauses = ['e.account_id = $1'];
  const add = (clause: string, value: string | number | undefined) => {
    if (value === undefined) return;
    params.push(value);
    clauses.push(clause.replace('?', `$${params.length}`));
  };
  add('p.enrolment_id = ?', f.enrolmentId);
  add('p.end_to_end_id = ?', f.endToEndId);
  add('p.status = ?', f.status);
  add('p.data >= ?::date', f.inicio);
  add('p.data <= ?::date', f.fim);
  params.push(limit);
  const { rows } = await sql.query<ListedPaymentRow>(
    `select ${columns('p.')}, e.identificador, e.id_proprio
       from of_enrolments e join of_payments p on p.enrolment_id = e.id
      where ${clauses.join(' and ')} order by p.created_at, p.id limit $${params.length}`,
    params,
  );
  return rows;
}

export interface PaymentRefundRow {
  end_to_end_id: string;
  rtr_id: string;
  amount_cents: number;
  status: string;
  requested_at: Date;
}

/** Refunds of the received Pix a payment became (through the payment engine), by end-to-end id. */
export async function refundsOf(sql: Sql, endToEndIds: string[]): Promise<PaymentRefundRow[]> {
  if (!endToEndIds.length) return [];
  const { rows } = await sql.query<PaymentRefundRow>(
    `select p.end_to_end_id, r.rtr_id, r.amount_cents::float8 as amount_cents, r.status, r.requested_at
       from refunds r join received_pix p on p.id = r.received_pix_id
      where p.end_to_end_id = any($1) order by r.requested_at, r.id`,
    [endToEndIds],
  );
  return rows;
}
