/**
 * What the sandbox payer's app reads before it pays (pay.ts, settlement.ts): the charge a txid or a location
 * names — its key and account (where the pacs.008 goes) and what it asks (the amount, when none is given) — or
 * the account of a key or account number (whose clock the payment happens on).
 */
import type { Sql } from '../platform/db/database.ts';
import type { CobBody } from '../pix/cob/schemas.ts';
import type { CobVBody } from '../pix/cobv/schemas.ts';

export interface ChargeToPay {
  account_id: number;
  txid: string;
  chave: string | null;
  /** The receiving account's number: where a pacs.008 without a key goes. */
  conta: string;
  kind: 'cob' | 'cobv';
  amount_cents: number;
  body: CobBody | CobVBody;
}

const COLUMNS = 'c.account_id, c.txid, c.chave, a.conta, c.kind, c.amount_cents, c.body';

export async function chargeToPay(
  sql: Sql,
  by: { accountId: number; txid: string } | { token: string },
): Promise<ChargeToPay | undefined> {
  const { rows } =
    'token' in by
      ? await sql.query<ChargeToPay>(
          `select ${COLUMNS} from charges c join accounts a on a.id = c.account_id
           join locations l on l.id = c.location_id where l.token = $1`,
          [by.token],
        )
      : await sql.query<ChargeToPay>(
          `select ${COLUMNS} from charges c join accounts a on a.id = c.account_id
           where c.account_id = $1 and c.txid = $2`,
          [by.accountId, by.txid],
        );
  return rows[0] && { ...rows[0], account_id: Number(rows[0].account_id) };
}

/** The account a key or an account number belongs to, if any. */
export async function accountOf(sql: Sql, to: { chave: string } | { conta: string }): Promise<number | undefined> {
  const { rows } =
    'chave' in to
      ? await sql.query<{ account_id: number }>('select account_id from pix_keys where chave = $1', [to.chave])
      : await sql.query<{ account_id: number }>('select id as account_id from accounts where conta = $1', [to.conta]);
  return rows[0] && Number(rows[0].account_id);
}
