/** Storage of console users (tables `console_users`, `console_user_accounts`, migration 024). */
import type { Sql } from '../../platform/db/database.ts';
import type { RoleName } from './roles.ts';

export interface ConsoleUserRow {
  id: number;
  name: string;
  secret_hash: string;
  role: RoleName;
  account_ids: number[];
}

/** The new user's id, or undefined when the name is taken. */
export async function insertConsoleUser(
  sql: Sql,
  user: { name: string; secretHash: string; role: RoleName; accountIds: number[] },
  now: Date,
): Promise<number | undefined> {
  const { rows } = await sql.query<{ id: string | number }>(
    `insert into console_users (name, secret_hash, role, created_at) values ($1, $2, $3, $4)
     on conflict (name) do nothing returning id`,
    [user.name, user.secretHash, user.role, now],
  );
  if (!rows[0]) return undefined;
  const id = Number(rows[0].id);
  await sql.query('insert into console_user_accounts (user_id, account_id) select $1, unnest($2::bigint[])', [
    id,
    user.accountIds,
  ]);
  return id;
}

/**
 * What a session of a user was granted, as one text: the secret's hash, the role and the accounts. A session
 * keeps a MAC of it from sign-in (console/session.ts); a new secret, role or set of accounts changes it, and
 * the session is refused. `grantSql` is the same text read in SQL, for the check every request makes.
 */
export const grantOf = (user: Pick<ConsoleUserRow, 'secret_hash' | 'role' | 'account_ids'>) =>
  `${user.secret_hash}|${user.role}|${[...user.account_ids].sort((a, b) => a - b).join(',')}`;

export const grantSql = (userParam: string) =>
  `(select u.secret_hash || '|' || u.role || '|' || coalesce((select string_agg(a.account_id::text, ',' order by a.account_id)
      from console_user_accounts a where a.user_id = u.id), '')
    from console_users u where u.id = ${userParam}::bigint)`;

export async function findConsoleUser(sql: Sql, name: string): Promise<ConsoleUserRow | undefined> {
  const { rows } = await sql.query<ConsoleUserRow & { id: string | number; account_ids: (string | number)[] }>(
    `select u.id, u.name, u.secret_hash, u.role,
            array(select account_id from console_user_accounts a where a.user_id = u.id order by account_id) as account_ids
       from console_users u where u.name = $1`,
    [name],
  );
  const row = rows[0];
  return row && { ...row, id: Number(row.id), account_ids: row.account_ids.map(Number) };
}

/** The account ids of these account numbers (`conta`); unknown numbers are absent. */
export async function accountIdsByConta(sql: Sql, contas: string[]): Promise<Map<string, number>> {
  const { rows } = await sql.query<{ id: string | number; conta: string }>(
    'select id, conta from accounts where conta = any($1::text[])',
    [contas],
  );
  return new Map(rows.map((r) => [r.conta, Number(r.id)]));
}

/** Whether a user of that name was removed (their accounts go with them, `on delete cascade`). */
export async function deleteConsoleUser(sql: Sql, name: string): Promise<boolean> {
  const { rows } = await sql.query('delete from console_users where name = $1 returning id', [name]);
  return rows.length > 0;
}

export interface ConsoleUserListed {
  name: string;
  role: RoleName;
  /** The accounts' numbers, as the operator gave them. */
  contas: string[];
  created_at: Date;
}

/** Every console user (or the one named), by name: the operator's list (a handful of people, never paged). */
export async function listConsoleUsers(sql: Sql, name?: string): Promise<ConsoleUserListed[]> {
  const { rows } = await sql.query<ConsoleUserListed>(
    `select u.name, u.role, u.created_at,
            array(select c.conta from console_user_accounts a join accounts c on c.id = a.account_id
                   where a.user_id = u.id order by c.conta) as contas
       from console_users u where $1::text is null or u.name = $1 order by u.name`,
    [name ?? null],
  );
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at) }));
}

/** Whether a user of that name now has this secret hash (the old one no longer signs in or holds a session). */
export async function replaceSecretHash(sql: Sql, name: string, secretHash: string): Promise<boolean> {
  const { rows } = await sql.query('update console_users set secret_hash = $2 where name = $1 returning id', [
    name,
    secretHash,
  ]);
  return rows.length > 0;
}

/** Whether a user of that name exists; its role and accounts (each when given) are then these. */
export async function changeConsoleUser(
  sql: Sql,
  name: string,
  change: { role?: RoleName; accountIds?: number[] },
): Promise<boolean> {
  const { rows } = await sql.query<{ id: string | number }>(
    'update console_users set role = coalesce($2, role) where name = $1 returning id',
    [name, change.role ?? null],
  );
  if (!rows[0]) return false;
  if (change.accountIds) {
    const id = Number(rows[0].id);
    await sql.query('delete from console_user_accounts where user_id = $1', [id]);
    await sql.query('insert into console_user_accounts (user_id, account_id) select $1, unnest($2::bigint[])', [
      id,
      change.accountIds,
    ]);
  }
  return true;
}
