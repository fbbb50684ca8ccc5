/**
 * What the sandbox payer's app reads before it pays (pay.ts, settlement.ts): the charge it pays automatically — its
 * key (where the pacs.008 goes) and the amount it asks — or the account a key, an account number or a
 * location belongs to (whose clock the payment happens on).
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

export async function chargeToPay(sql: Sql, by: { accountId: number; txid: string }): Promise<ChargeToPay | undefined> {
  const { rows } = await sql.query<ChargeToPay>(
    `select ${COLUMNS} from charges c where c.account_id = $1 and c.txid = $2`,
    [by.accountId, by.txid],
  );
  return rows[0] && { ...rows[0], account_id: Number(rows[0].account_id) };
}

/** The account a key, an account number or a location belongs to, if any. */
export async function accountOf(
  sql: Sql,
  to: { chave: string } | { conta: string } | { token: string },
): Promise<number | undefined> {
  const [query, param] =
    'chave' in to
      ? ['select account_id from pix_keys where chave = $1', to.chave]
      : 'conta' in to
        ? ['select id as account_id from accounts where conta = $1', to.conta]
        : ['select account_id from locations where token = $1', to.token];
  const { rows } = await sql.query<{ account_id: number }>(query, [param]);
  return rows[0] && Number(rows[0].account_id);
}
