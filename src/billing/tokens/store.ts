/** SQL of payment tokens. Only the token's hash, the mask and the sealed vault entry are stored. */
import type { Sql } from '../../platform/db/database.ts';

export interface TokenRow {
  token_sha256: string;
  account_id: number;
  brand: string;
  card_mask: string;
  vault_entry: string;
  reuse: boolean;
}

export async function insertToken(sql: Sql, t: TokenRow & { expiresAt: Date }, now: Date): Promise<void> {
  await sql.query(
    `insert into billing_payment_tokens (token_sha256, account_id, brand, card_mask, vault_entry, reuse, expires_at, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [t.token_sha256, t.account_id, t.brand, t.card_mask, t.vault_entry, t.reuse, t.expiresAt, now],
  );
}

/** Takes a usable token of the account in one statement: a single-use token can be taken once, whatever races. */
export async function takeToken(
  sql: Sql,
  tokenSha256: string,
  accountId: number,
  now: Date,
): Promise<TokenRow | undefined> {
  const { rows } = await sql.query<TokenRow>(
    `update billing_payment_tokens set used_at = $3
     where token_sha256 = $1 and account_id = $2 and expires_at > $3 and (reuse or used_at is null)
     returning token_sha256, account_id, brand, card_mask, vault_entry, reuse`,
    [tokenSha256, accountId, now],
  );
  return rows[0];
}

/** The tokens of these hashes (a renewal batch reads every stored card it charges in one statement). */
export async function findTokensByHash(sql: Sql, tokenSha256s: string[]): Promise<TokenRow[]> {
  const { rows } = await sql.query<TokenRow>(
    'select token_sha256, account_id, brand, card_mask, vault_entry, reuse from billing_payment_tokens where token_sha256 = any($1)',
    [tokenSha256s],
  );
  return rows;
}

export async function accountIdByPayeeCode(sql: Sql, payeeCode: string): Promise<number | undefined> {
  const { rows } = await sql.query<{ id: number }>('select id from accounts where payee_code = $1', [payeeCode]);
  return rows[0]?.id;
}
