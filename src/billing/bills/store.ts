/** Storage of bill payments and of the bill-payment webhook (migration 033). */
import type { Sql } from '../../platform/db/database.ts';
import type { BillPaymentStatus } from './schemas.ts';

export interface BillPaymentRow {
  id: number;
  account_id: number;
  tipo: 'boleto' | 'tributo';
  barcode: string;
  linha_digitavel: string;
  amount_cents: number;
  /** YYYY-MM-DD. */
  payment_date: string;
  descricao: string | null;
  status: BillPaymentStatus;
  on_us_charge_id: number | null;
  protocolo: string | null;
  motivo_recusa: string | null;
  requested_at: Date;
  settled_at: Date | null;
}

const COLUMNS = `id, account_id, tipo, barcode, linha_digitavel, amount_cents, to_char(payment_date, 'YYYY-MM-DD') as payment_date,
  descricao, status, on_us_charge_id, protocolo, motivo_recusa, requested_at, settled_at`;

/** Undefined when a live or settled payment of the same barcode exists (a bill is paid at most once). */
export async function insertBillPayment(
  sql: Sql,
  row: Omit<BillPaymentRow, 'id' | 'protocolo' | 'motivo_recusa' | 'settled_at'>,
): Promise<BillPaymentRow | undefined> {
  const { rows } = await sql.query<BillPaymentRow>(
    `insert into bill_payments (account_id, tipo, barcode, linha_digitavel, amount_cents, payment_date, descricao, status,
       on_us_charge_id, requested_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
     on conflict (barcode) where status not in ('CANCELADO', 'NAO_REALIZADO') do nothing
     returning ${COLUMNS}`,
    [
      row.account_id,
      row.tipo,
      row.barcode,
      row.linha_digitavel,
      row.amount_cents,
      row.payment_date,
      row.descricao,
      row.status,
      row.on_us_charge_id,
      row.requested_at,
    ],
  );
  return rows[0];
}

/** By id; with `accountId`, only that account's; `lock` takes the row for the caller's transaction. */
export async function findBillPayment(
  sql: Sql,
  id: number,
  options: { accountId?: number; lock?: boolean } = {},
): Promise<BillPaymentRow | undefined> {
  const { rows } = await sql.query<BillPaymentRow>(
    `select ${COLUMNS} from bill_payments where id = $1 and ($2::bigint is null or account_id = $2)${options.lock ? ' for update' : ''}`,
    [id, options.accountId ?? null],
  );
  return rows[0];
}

export async function setBillPaymentStatus(
  sql: Sql,
  id: number,
  status: BillPaymentStatus,
  changes: { protocolo?: string; motivoRecusa?: string; settledAt?: Date },
  now: Date,
): Promise<BillPaymentRow> {
  const { rows } = await sql.query<BillPaymentRow>(
    `update bill_payments set status = $2, protocolo = coalesce($3, protocolo), motivo_recusa = coalesce($4, motivo_recusa),
       settled_at = coalesce($5, settled_at), updated_at = $6
     where id = $1 returning ${COLUMNS}`,
    [id, status, changes.protocolo ?? null, changes.motivoRecusa ?? null, changes.settledAt ?? null, now],
  );
  return rows[0];
}

/** The account's requests from `from` (inclusive) to `to` (exclusive): id and status, oldest first. */
export async function paymentsRequested(
  sql: Sql,
  accountId: number,
  from: Date,
  to: Date,
): Promise<{ id: number; status: BillPaymentStatus }[]> {
  const { rows } = await sql.query<{ id: number; status: BillPaymentStatus }>(
    `select id, status from bill_payments where account_id = $1 and requested_at >= $2 and requested_at < $3
     order by requested_at, id`,
    [accountId, from, to],
  );
  return rows;
}

export interface BillWebhookRow {
  account_id: number;
  url: string;
  created_at: Date;
}

/** The account's one bill-payment webhook, replaced by a new registration. */
export async function saveBillWebhook(sql: Sql, row: BillWebhookRow): Promise<void> {
  await sql.query(
    `insert into bill_payment_webhooks (account_id, url, created_at) values ($1, $2, $3)
     on conflict (account_id) do update set url = excluded.url, created_at = excluded.created_at`,
    [row.account_id, row.url, row.created_at],
  );
}

export async function findBillWebhook(sql: Sql, accountId: number): Promise<BillWebhookRow | undefined> {
  const { rows } = await sql.query<BillWebhookRow>('select * from bill_payment_webhooks where account_id = $1', [
    accountId,
  ]);
  return rows[0];
}

export async function deleteBillWebhook(sql: Sql, accountId: number, url: string): Promise<boolean> {
  const { rowCount } = await sql.query('delete from bill_payment_webhooks where account_id = $1 and url = $2', [
    accountId,
    url,
  ]);
  return rowCount > 0;
}
