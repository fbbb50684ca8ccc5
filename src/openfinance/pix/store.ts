/** SQL of Open Finance Pix payments and their parcels. */
import type { Sql } from '../../platform/db/database.ts';
import { findConsentRecord, type ConsentRecordKey } from '../consent/store.ts';
import type { PixPaymentBody } from './schemas.ts';

export type PixKind = 'imediato' | 'agendado' | 'recorrente' | 'biometria';
export type PixPaymentStatus =
  | 'pendente'
  | 'agendado'
  | 'aceito'
  | 'rejeitado'
  | 'cancelado'
  | 'expirado'
  | 'concluido';
export type ParcelStatus = 'agendado' | 'aceito' | 'rejeitado' | 'cancelado' | 'substituido';

export interface PixPaymentRow {
  id: number;
  account_id: number;
  identificador: string;
  kind: PixKind;
  status: PixPaymentStatus;
  motivo: string | null;
  body: PixPaymentBody;
  amount_cents: number;
  id_proprio: string | null;
  receiver_conta: string;
  dates: string[];
  link_id: number | null;
  replaces_parcel_id: number | null;
  consent_token: string | null;
  consent_expires_at: Date | null;
  authorised_at: Date | null;
  idempotency_key: string | null;
  cancelled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ParcelRow {
  id: number;
  payment_id: number;
  account_id: number;
  end_to_end_id: string;
  amount_cents: number;
  /** YYYY-MM-DD. */
  data: string;
  status: ParcelStatus;
  motivo: string | null;
  /** When its payer's institution was asked to pay it (../settle.ts): from then on only the answer moves it. */
  payer_asked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const PAYMENT = `id, account_id, identificador, kind, status, motivo, body, amount_cents::float8 as amount_cents, id_proprio,
  receiver_conta, dates, link_id, replaces_parcel_id, consent_token, consent_expires_at, authorised_at, idempotency_key,
  cancelled_at, created_at, updated_at`;
const PARCEL = `id, payment_id, account_id, end_to_end_id, amount_cents::float8 as amount_cents,
  to_char(data, 'YYYY-MM-DD') as data, status, motivo, payer_asked_at, created_at, updated_at`;

/** Undefined when the account already made a payment under the same idempotency key: the caller reads that one. */
export async function insertPixPayment(
  sql: Sql,
  row: Omit<PixPaymentRow, 'id' | 'motivo' | 'cancelled_at' | 'updated_at'>,
): Promise<PixPaymentRow | undefined> {
  const { rows } = await sql.query<PixPaymentRow>(
    `insert into of_pix_payments (account_id, identificador, kind, status, body, amount_cents, id_proprio,
       receiver_conta, dates, link_id, replaces_parcel_id, consent_token, consent_expires_at, authorised_at,
       idempotency_key, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)
     on conflict (account_id, idempotency_key) do nothing returning ${PAYMENT}`,
    [
      row.account_id,
      row.identificador,
      row.kind,
      row.status,
      JSON.stringify(row.body),
      row.amount_cents,
      row.id_proprio,
      row.receiver_conta,
      row.dates,
      row.link_id,
      row.replaces_parcel_id,
      row.consent_token,
      row.consent_expires_at,
      row.authorised_at,
      row.idempotency_key,
      row.created_at,
    ],
  );
  return rows[0];
}

export function findPixPayment(sql: Sql, by: ConsentRecordKey, lock = false): Promise<PixPaymentRow | undefined> {
  return findConsentRecord<PixPaymentRow>(sql, 'of_pix_payments', PAYMENT, by, lock);
}

export async function setPixPaymentStatus(
  sql: Sql,
  id: number,
  status: PixPaymentStatus,
  motivo: string | null,
  now: Date,
): Promise<PixPaymentRow> {
  const { rows } = await sql.query<PixPaymentRow>(
    `update of_pix_payments set status = $2, motivo = $3, updated_at = $4,
       cancelled_at = case when $2 = 'cancelado' then $4 else cancelled_at end
     where id = $1 returning ${PAYMENT}`,
    [id, status, motivo, now],
  );
  return rows[0];
}

/** The payer authorised the payment: its parcels are written in the same transaction. */
export async function markAuthorised(sql: Sql, id: number, now: Date): Promise<PixPaymentRow> {
  const { rows } = await sql.query<PixPaymentRow>(
    `update of_pix_payments set authorised_at = $2, updated_at = $2 where id = $1 returning ${PAYMENT}`,
    [id, now],
  );
  return rows[0];
}

export async function insertParcel(
  sql: Sql,
  row: Pick<ParcelRow, 'payment_id' | 'account_id' | 'end_to_end_id' | 'amount_cents' | 'data' | 'created_at'>,
): Promise<ParcelRow> {
  const { rows } = await sql.query<ParcelRow>(
    `insert into of_pix_parcels (payment_id, account_id, end_to_end_id, amount_cents, data, status, created_at, updated_at)
     values ($1, $2, $3, $4, $5, 'agendado', $6, $6) returning ${PARCEL}`,
    [row.payment_id, row.account_id, row.end_to_end_id, row.amount_cents, row.data, row.created_at],
  );
  return rows[0];
}

export async function findParcel(
  sql: Sql,
  by: { id: number } | { accountId: number; endToEndId: string },
  lock = false,
): Promise<ParcelRow | undefined> {
  const [where, params] =
    'id' in by ? ['id = $1', [by.id]] : ['account_id = $1 and end_to_end_id = $2', [by.accountId, by.endToEndId]];
  const { rows } = await sql.query<ParcelRow>(
    `select ${PARCEL} from of_pix_parcels where ${where}${lock ? ' for update' : ''}`,
    params,
  );
  return rows[0];
}

/** The parcels of some payments, in date order. */
export async function parcelsOf(sql: Sql, paymentIds: number[], lock = false): Promise<ParcelRow[]> {
  if (!paymentIds.length) return [];
  const { rows } = await sql.query<ParcelRow>(
    `select ${PARCEL} from of_pix_parcels where payment_id = any($1) order by payment_id, data, id${lock ? ' for update' : ''}`,
    [paymentIds],
  );
  return rows;
}

export async function setParcelStatus(
  sql: Sql,
  id: number,
  status: ParcelStatus,
  motivo: string | null,
  now: Date,
): Promise<ParcelRow> {
  const { rows } = await sql.query<ParcelRow>(
    `update of_pix_parcels set status = $2, motivo = $3, updated_at = $4 where id = $1 returning ${PARCEL}`,
    [id, status, motivo, now],
  );
  return rows[0];
}

/** The parcel's payer's institution is asked to pay it (the first time: a second settlement keeps the instant). */
export async function markParcelAsked(sql: Sql, id: number, now: Date): Promise<void> {
  await sql.query('update of_pix_parcels set payer_asked_at = coalesce(payer_asked_at, $2) where id = $1', [id, now]);
}

export interface PixPaymentFilter {
  accountId: number;
  kinds: PixKind[];
  from: Date;
  to: Date;
  status?: string;
  /** The payment's identificador, or its idProprio. */
  identificador?: string;
}

function where(f: PixPaymentFilter): [string, unknown[]] {
  const params: unknown[] = [f.accountId, f.kinds, f.from, f.to];
  const clauses = ['account_id = $1', 'kind = any($2)', 'created_at >= $3', 'created_at <= $4'];
  if (f.status !== undefined) {
    params.push(f.status);
    clauses.push(`status = $${params.length}`);
  }
  if (f.identificador !== undefined) {
    params.push(f.identificador);
    clauses.push(`(identificador = $${params.length} or id_proprio = $${params.length})`);
  }
  return [clauses.join(' and '), params];
}

/** One page of the account's payments of some kinds created in a period, oldest first (index of_pix_payments_page). */
export async function pixPaymentPage(
  sql: Sql,
  f: PixPaymentFilter,
  offset: number,
  limit: number,
): Promise<{ rows: PixPaymentRow[]; total: number }> {
  const [clause, params] = where(f);
  const { rows } = await sql.query<PixPaymentRow>(
    `select ${PAYMENT} from of_pix_payments where ${clause} order by created_at, id
      offset $${params.length + 1} limit $${params.length + 2}`,
    [...params, offset, limit],
  );
  const count = await sql.query<{ n: number }>(
    `select count(*)::int as n from of_pix_payments where ${clause}`,
    params,
  );
  return { rows, total: count.rows[0].n };
}

/** What a biometric link has paid (or is paying) on a Brasília day: its daily limit's use. */
export async function linkSpentCents(sql: Sql, linkId: number, data: string): Promise<number> {
  const { rows } = await sql.query<{ cents: number }>(
    `select coalesce(sum(r.amount_cents), 0)::float8 as cents
       from of_pix_payments p join of_pix_parcels r on r.payment_id = p.id
      where p.link_id = $1 and r.data = $2::date and r.status in ('agendado', 'aceito')`,
    [linkId, data],
  );
  return rows[0].cents;
}

/** Whether `chave` is an active Pix key of the account (a favorecido named by key must be the application's own). */
export async function isActiveKeyOf(sql: Sql, chave: string, accountId: number): Promise<boolean> {
  const { rows } = await sql.query(
    'select 1 from pix_keys where chave = $1 and account_id = $2 and removed_at is null',
    [chave, accountId],
  );
  return rows.length > 0;
}

/** A refund of the Pix an Open Finance Pix parcel became: the payment and parcel it is about. */
export interface ParcelRefundRow {
  account_id: number;
  identificador: string;
  end_to_end_id: string;
  rtr_id: string;
  amount_cents: number;
}

/** Undefined when the refunded Pix is not a parcel of an Open Finance Pix payment (most refunds). */
export async function parcelRefund(sql: Sql, refundId: number): Promise<ParcelRefundRow | undefined> {
  const { rows } = await sql.query<ParcelRefundRow>(
    `select r.account_id, p.identificador, c.end_to_end_id, r.rtr_id, r.amount_cents::float8 as amount_cents
       from refunds r
       join received_pix x on x.id = r.received_pix_id
       join of_pix_parcels c on c.account_id = r.account_id and c.end_to_end_id = x.end_to_end_id
       join of_pix_payments p on p.id = c.payment_id
      where r.id = $1`,
    [refundId],
  );
  return rows[0];
}
