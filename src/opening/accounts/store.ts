/** Storage of simplified accounts: who opened which account, and whether its secret was answered. */
import type { Sql } from '../../platform/db/database.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';

export interface SimplifiedAccountRow {
  id: string;
  opener_account_id: number;
  account_id: number;
  client_id: string;
  /** The end client's documents; unique per integrator (migration 043). */
  cpf: string | null;
  cnpj: string | null;
  secret_answered_at: Date | null;
  created_at: Date;
}

export async function insertSimplifiedAccount(sql: Sql, row: Omit<SimplifiedAccountRow, 'secret_answered_at'>) {
  await sql.query(
    `insert into simplified_accounts (id, opener_account_id, account_id, client_id, cpf, cnpj, created_at)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [row.id, row.opener_account_id, row.account_id, row.client_id, row.cpf, row.cnpj, row.created_at],
  );
}

/** The unique indexes that hold one simplified account per holder and integrator. */
const HOLDER_INDEXES = new Set(['simplified_accounts_opener_cpf', 'simplified_accounts_opener_cnpj']);

/** True when `error` is a second simplified account for a holder the integrator already opened one for. */
export function isDuplicateHolder(error: unknown): boolean {
  return isUniqueViolation(error) && HOLDER_INDEXES.has((error as { constraint?: string }).constraint ?? '');
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
