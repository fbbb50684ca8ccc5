/** Storage of simplified accounts: who opened which account, and whether its secret was answered. */
import type { Sql } from '../../platform/db/database.ts';

export interface SimplifiedAccountRow {
  id: string;
  opener_account_id: number;
  account_id: number;
  client_id: string;
  secret_answered_at: Date | null;
  created_at: Date;
}

export async function insertSimplifiedAccount(sql: Sql, row: Omit<SimplifiedAccountRow, 'secret_answered_at'>) {
  await sql.query(
    `insert into simplified_accounts (id, opener_account_id, account_id, client_id, created_at) values ($1, $2, $3, $4, $5)`,
    [row.id, row.opener_account_id, row.account_id, row.client_id, row.created_at],
  );
}

/** Only the account that opened it sees it. */
export async function findSimplifiedAccount(
  sql: Sql,
  openerAccountId: number,
  id: string,
): Promise<SimplifiedAccountRow | undefined> {
  const { rows } = await sql.query<SimplifiedAccountRow>(
    'select * from simplified_accounts where id = $1 and opener_account_id = $2',
    [id, openerAccountId],
  );
  return rows[0];
}

/** Marks the secret answered; false when another read already did (that read answered it). */
export async function claimSecretAnswer(sql: Sql, id: string, now: Date): Promise<boolean> {
  const { rowCount } = await sql.query(
    'update simplified_accounts set secret_answered_at = $2 where id = $1 and secret_answered_at is null',
    [id, now],
  );
  return rowCount > 0;
}
