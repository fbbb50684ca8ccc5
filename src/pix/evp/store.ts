/**
 * Random (evp) keys in `pix_keys`. A removed key keeps its row (removed_at), so its chave is never reused. The
 * keys a participant registered for its customers (`confirm_incoming`, POST /dict/entries) are the directory's,
 * not the account's own: /v2/gn/evp neither lists nor removes them.
 */
import type { Sql } from '../../platform/db/database.ts';

/**
 * Locks the account row for the rest of the transaction and returns its document. Key creations of one
 * account queue here, so counting the active keys and inserting one cannot race past the limit. `for no key
 * update`, not `for update`: it still excludes another key creation, but not the `for key share` lock every
 * foreign-key check on the account takes, so the account's charges and Pix do not wait on a key creation.
 */
export async function lockAccountForKeys(sql: Sql, accountId: number): Promise<{ documento: string } | undefined> {
  const { rows } = await sql.query<{ documento: string }>(
    'select documento from accounts where id = $1 for no key update',
    [accountId],
  );
  return rows[0];
}

/**
 * Every active key of the account, whatever its type: the DICT limit counts them all. A participant's customers'
 * keys (POST /dict/entries, counted per owner there) are not the account holder's own.
 */
export async function countActiveKeys(sql: Sql, accountId: number): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    'select count(*)::int as n from pix_keys where account_id = $1 and removed_at is null and not confirm_incoming',
    [accountId],
  );
  return rows[0].n;
}

/**
 * Inserts a new random key unless the chave exists, active or removed. Returns false on a collision;
 * `on conflict do nothing` keeps the transaction usable, so the caller can try another UUID.
 */
export async function insertRandomKey(sql: Sql, accountId: number, chave: string, now: Date): Promise<boolean> {
  const { rowCount } = await sql.query(
    `insert into pix_keys (chave, account_id, tipo, created_at) values ($1, $2, 'evp', $3) on conflict (chave) do nothing`,
    [chave, accountId, now],
  );
  return rowCount === 1;
}

export async function activeRandomKeys(sql: Sql, accountId: number): Promise<string[]> {
  const { rows } = await sql.query<{ chave: string }>(
    `select chave from pix_keys where account_id = $1 and tipo = 'evp' and removed_at is null and not confirm_incoming
     order by created_at, chave`,
    [accountId],
  );
  return rows.map((r) => r.chave);
}

/** Marks an active random key of the account removed. False when there is no such key. */
export async function markRandomKeyRemoved(sql: Sql, accountId: number, chave: string, now: Date): Promise<boolean> {
  const { rowCount } = await sql.query(
    `update pix_keys set removed_at = $3
      where chave = $1 and account_id = $2 and tipo = 'evp' and removed_at is null and not confirm_incoming`,
    [chave, accountId, now],
  );
  return rowCount === 1;
}
