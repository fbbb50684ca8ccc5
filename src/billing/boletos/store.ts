/** SQL of boletos (billing_boletos) and of the Pix charges printed on them. */
import type { Sql } from '../../platform/db/database.ts';
import type { CustomerInput } from '../shared/schemas.ts';
import type { BoletoTerms } from './terms.ts';
import type { BalanceSheetInput } from './schemas.ts';

export interface BoletoRow {
  charge_id: number;
  account_id: number;
  barcode: string;
  due_date: string;
  amount_cents: number;
  terms: BoletoTerms;
  customer: CustomerInput;
  message: string | null;
  pix_charge_id: number | null;
  pix_txid: string | null;
  pix_qrcode: string | null;
  balance_sheet: BalanceSheetInput | null;
  link_token: string;
  barcode_paid_at: Date | null;
  barcode_paid_cents: number | null;
  barcode_payer: { nome: string; cpf?: string; cnpj?: string } | null;
  credit_at: Date | null;
  created_at: Date;
}

const COLUMNS = `charge_id, account_id, barcode, to_char(due_date, 'YYYY-MM-DD') as due_date, amount_cents, terms, customer,
  message, pix_charge_id, pix_txid, pix_qrcode, balance_sheet, link_token, barcode_paid_at, barcode_paid_cents, barcode_payer, credit_at,
  created_at`;

export async function insertBoleto(
  sql: Sql,
  b: Omit<BoletoRow, 'balance_sheet' | 'barcode_paid_at' | 'barcode_paid_cents' | 'barcode_payer' | 'credit_at'>,
): Promise<void> {
  await sql.query(
    `insert into billing_boletos (charge_id, account_id, barcode, due_date, amount_cents, terms, customer, message,
       pix_charge_id, pix_txid, pix_qrcode, link_token, created_at)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $12, $13)`,
    [
      b.charge_id,
      b.account_id,
      b.barcode,
      b.due_date,
      b.amount_cents,
      JSON.stringify(b.terms),
      JSON.stringify(b.customer),
      b.message,
      b.pix_charge_id,
      b.pix_txid,
      b.pix_qrcode,
      b.link_token,
      b.created_at,
    ],
  );
}

export async function findBoleto(
  sql: Sql,
  where: { chargeId?: number; barcode?: string; linkToken?: string; pixChargeId?: number },
): Promise<BoletoRow | undefined> {
  const { rows } = await sql.query<BoletoRow>(
    `select ${COLUMNS} from billing_boletos where ($1::bigint is null or charge_id = $1) and ($2::text is null or barcode = $2)
       and ($3::text is null or link_token = $3) and ($4::bigint is null or pix_charge_id = $4)`,
    [where.chargeId ?? null, where.barcode ?? null, where.linkToken ?? null, where.pixChargeId ?? null],
  );
  return rows[0];
}

export async function boletosOf(sql: Sql, chargeIds: number[]): Promise<Map<number, BoletoRow>> {
  if (!chargeIds.length) return new Map();
  const { rows } = await sql.query<BoletoRow>(`select ${COLUMNS} from billing_boletos where charge_id = any($1)`, [
    chargeIds,
  ]);
  return new Map(rows.map((r) => [Number(r.charge_id), r]));
}

type Changes = Partial<
  Pick<
    BoletoRow,
    | 'barcode'
    | 'due_date'
    | 'pix_charge_id'
    | 'pix_txid'
    | 'pix_qrcode'
    | 'terms'
    | 'balance_sheet'
    | 'barcode_paid_at'
    | 'barcode_paid_cents'
    | 'barcode_payer'
    | 'credit_at'
  >
>;
const JSON_COLUMNS = new Set(['balance_sheet', 'barcode_payer', 'terms']);

export async function updateBoleto(sql: Sql, chargeId: number, changes: Changes): Promise<void> {
  const entries = Object.entries(changes);
  if (!entries.length) return;
  const sets = entries.map(([column], i) => `${column} = $${i + 2}${JSON_COLUMNS.has(column) ? '::jsonb' : ''}`);
  await sql.query(`update billing_boletos set ${sets.join(', ')} where charge_id = $1`, [
    chargeId,
    ...entries.map(([column, value]) => (JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value)),
  ]);
}

/**
 * Locks the boleto's Pix charge row, when it has one: every path that changes a boleto takes that lock before
 * the billing charge's, the order the Pix engine takes them in (the engine locks the Pix charge, then its hook
 * the billing charge), so the two never wait on each other in a cycle.
 */
export async function lockPixChargeOf(sql: Sql, chargeId: number): Promise<void> {
  await sql.query(
    'select c.id from charges c join billing_boletos b on b.pix_charge_id = c.id where b.charge_id = $1 for update of c',
    [chargeId],
  );
}

/** Withdraws the Pix QR of a boleto (paid by barcode, settled, canceled, re-issued): the engine refuses it then. */
export async function withdrawPixCharge(
  sql: Sql,
  pixChargeId: number,
  status: 'REMOVIDA_PELO_PSP' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
  now: Date,
): Promise<void> {
  await sql.query(`update charges set status = $2, updated_at = $3 where id = $1 and status = 'ATIVA'`, [
    pixChargeId,
    status,
    now,
  ]);
}

/** The account's oldest Pix key still registered: the key a boleto's QR is a due charge on. */
export async function boletoPixKey(sql: Sql, accountId: number): Promise<string | undefined> {
  const { rows } = await sql.query<{ chave: string }>(
    'select chave from pix_keys where account_id = $1 and removed_at is null order by created_at, chave limit 1',
    [accountId],
  );
  return rows[0]?.chave;
}

/** The id of the account's Pix charge `txid` (a boleto's QR, just created). */
export async function pixChargeIdOf(sql: Sql, accountId: number, txid: string): Promise<number> {
  const { rows } = await sql.query<{ id: number }>('select id from charges where account_id = $1 and txid = $2', [
    accountId,
    txid,
  ]);
  return Number(rows[0].id);
}

/** The billing charge whose boleto prints the Pix charge `pixChargeId` as its QR, if any. */
export async function boletoChargeOfPix(sql: Sql, pixChargeId: number): Promise<number | undefined> {
  const { rows } = await sql.query<{ charge_id: number }>(
    'select charge_id from billing_boletos where pix_charge_id = $1',
    [pixChargeId],
  );
  return rows[0] && Number(rows[0].charge_id);
}
