import type { Sql } from './db/database.ts';

/** Service-wide values every node shares (PKI, signing key, sandbox clock offset). */
export async function readState<T>(sql: Sql, name: string): Promise<T | undefined> {
  const { rows } = await sql.query<{ value: T }>('select value from service_state where name = $1', [name]);
  return rows[0]?.value;
}

export async function writeState(sql: Sql, name: string, value: unknown): Promise<void> {
  await sql.query(
    `insert into service_state (name, value, updated_at) values ($1, $2::jsonb, now())
     on conflict (name) do update set value = excluded.value, updated_at = now()`,
    [name, JSON.stringify(value)],
  );
}
