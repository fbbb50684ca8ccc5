/**
 * What the sandbox payer's app reads before it pays (pay.ts, settlement.ts): the charge it pays — auto-settled, or
 * behind a dynamic QR code's location: its key and txid (where the pacs.008 goes) and the amount it asks (the pay
 * endpoint by txid reads it on the engine's coalesced read) — or the account a key or an account number belongs
 * to (whose clock the payment happens on).
 */
import type { Sql } from '../platform/db/database.ts';
import type { CobBody } from '../pix/cob/schemas.ts';
import type { CobVBody } from '../pix/cobv/schemas.ts';

export interface ChargeToPay {
  account_id: number;
  txid: string;
  chave: string;
  kind: 'cob' | 'cobv';
  amount_cents: number;
  body: CobBody | CobVBody;
}

const COLUMNS = 'c.account_id, c.txid, c.chave, c.kind, c.amount_cents, c.body';

/** The charge of a txid on its account (auto-settlement), or behind a dynamic QR code's location. */
export async function chargeToPay(
  sql: Sql,
  by: { accountId: number; txid: string } | { token: string },
): Promise<ChargeToPay | undefined> {
  const { rows } =
    'token' in by
      ? await sql.query<ChargeToPay>(
          `select ${COLUMNS} from charges c join locations l on l.id = c.location_id where l.token = $1`,
          [by.token],
        )
      : await sql.query<ChargeToPay>(`select ${COLUMNS} from charges c where c.account_id = $1 and c.txid = $2`, [
          by.accountId,
          by.txid,
        ]);
  return rows[0] && { ...rows[0], account_id: Number(rows[0].account_id) };
}

/** The account a key or an account number belongs to, if any. */
export async function accountOf(sql: Sql, to: { chave: string } | { conta: string }): Promise<number | undefined> {
  const [query, param] =
    'chave' in to
      ? ['select account_id from pix_keys where chave = $1', to.chave]
      : ['select id as account_id from accounts where conta = $1', to.conta];
  const { rows } = await sql.query<{ account_id: number }>(query, [param]);
  return rows[0] && Number(rows[0].account_id);
}
