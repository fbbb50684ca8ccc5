/** The `sandbox_faults` table (migration 029): one row per account and kind. */
import type { Sql } from '../../platform/db/database.ts';
import type { FaultKind } from '../../platform/faults.ts';

export interface FaultRow {
  account_id: number;
  kind: FaultKind;
  params: Record<string, unknown>;
  remaining: number | null;
  ends_at: Date | null;
  created_at: Date;
}

const asRow = (r: FaultRow): FaultRow => ({
  ...r,
  account_id: Number(r.account_id),
  ends_at: r.ends_at && new Date(r.ends_at),
  created_at: new Date(r.created_at),
});

/** Every fault not spent yet, of every account (a fault past its period is kept out when it is used). */
export async function readLiveFaults(sql: Sql, accountId?: number): Promise<FaultRow[]> {
  const { rows } = await sql.query<FaultRow>(
    `select * from sandbox_faults
      where (remaining is null or remaining > 0) and ($1::bigint is null or account_id = $1)
      order by account_id, kind`,
    [accountId ?? null],
  );
  return rows.map(asRow);
}

export async function upsertFault(sql: Sql, row: FaultRow): Promise<FaultRow> {
  const { rows } = await sql.query<FaultRow>(
    `insert into sandbox_faults (account_id, kind, params, remaining, ends_at, created_at)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (account_id, kind) do update
       set params = excluded.params, remaining = excluded.remaining, ends_at = excluded.ends_at,
           created_at = excluded.created_at
     returning *`,
    [row.account_id, row.kind, JSON.stringify(row.params), row.remaining, row.ends_at, row.created_at],
  );
  return asRow(rows[0]);
}

/** Removes one kind, or every fault of the account; how many went. */
export async function deleteFaults(sql: Sql, accountId: number, kind?: FaultKind): Promise<number> {
  const { rows } = await sql.query<{ removed: string | number }>(
    `with gone as (delete from sandbox_faults where account_id = $1 and ($2::text is null or kind = $2) returning 1)
     select count(*) as removed from gone`,
    [accountId, kind ?? null],
  );
  return Number(rows[0].removed);
}

/**
 * One occurrence answered by the fault, if it is still in force at `now` (the account's clock): counted in
 * the same statement, so two nodes never answer more occurrences than were asked for.
 */
export async function consumeFault(
  sql: Sql,
  accountId: number,
  kind: FaultKind,
  now: Date,
): Promise<Pick<FaultRow, 'params' | 'remaining'> | undefined> {
  const { rows } = await sql.query<Pick<FaultRow, 'params' | 'remaining'>>(
    `update sandbox_faults set remaining = remaining - 1
      where account_id = $1 and kind = $2 and (remaining is null or remaining > 0) and (ends_at is null or ends_at > $3)
      returning params, remaining`,
    [accountId, kind, now],
  );
  return rows[0];
}
