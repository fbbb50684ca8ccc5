/** Storage of recurrence locations (table `recurrence_locations`, migration 018); the link lives on the recurrence. */
import type { Sql } from '../../platform/db/database.ts';
import { newLocationToken } from '../loc/store.ts';

export interface RecLocationRow {
  id: number;
  account_id: number;
  token: string;
  created_at: Date;
  /** The recurrence it serves, if any. */
  id_rec: string | null;
}

const SELECT = `select l.id, l.account_id, l.token, l.created_at, r.id_rec
  from recurrence_locations l left join recurrences r on r.location_id = l.id`;

export async function insertRecLocation(sql: Sql, accountId: number, now: Date): Promise<RecLocationRow> {
  const { rows } = await sql.query<RecLocationRow>(
    `insert into recurrence_locations (account_id, token, created_at) values ($1, $2, $3)
     returning id, account_id, token, created_at, null::text as id_rec`,
    [accountId, newLocationToken(), now],
  );
  return rows[0];
}

/** The owner's location (another account's reads as absent); `lock` orders two recurrences claiming it. */
export async function findRecLocation(
  sql: Sql,
  accountId: number,
  id: number,
  lock = false,
): Promise<RecLocationRow | undefined> {
  const { rows } = await sql.query<RecLocationRow>(
    `${SELECT} where l.account_id = $1 and l.id = $2${lock ? ' for update of l' : ''}`,
    [accountId, id],
  );
  return rows[0];
}

export async function linkRecLocation(sql: Sql, recurrenceId: number, locationId: number | null): Promise<void> {
  await sql.query('update recurrences set location_id = $2 where id = $1', [recurrenceId, locationId]);
}

export async function unlinkRecLocation(sql: Sql, locationId: number): Promise<void> {
  await sql.query('update recurrences set location_id = null where location_id = $1', [locationId]);
}

export async function listRecLocations(
  sql: Sql,
  f: { accountId: number; inicio: Date; fim: Date; idRecPresente?: boolean },
  page: number,
  pageSize: number,
): Promise<{ rows: RecLocationRow[]; total: number }> {
  let where = 'l.account_id = $1 and l.created_at >= $2 and l.created_at <= $3';
  if (f.idRecPresente !== undefined) where += f.idRecPresente ? ' and r.id is not null' : ' and r.id is null';
  const params = [f.accountId, f.inicio, f.fim];
  const count = await sql.query<{ n: number }>(
    `select count(*)::int as n from recurrence_locations l left join recurrences r on r.location_id = l.id where ${where}`,
    params,
  );
  const { rows } = await sql.query<RecLocationRow>(
    `${SELECT} where ${where} order by l.created_at, l.id limit $4 offset $5`,
    [...params, pageSize, page * pageSize],
  );
  return { rows, total: count.rows[0].n };
}

/** The address of a recurrence location, without scheme as the standard writes it. */
export function recLocationAddress(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/^https:\/\//, '')}/qr/v2/rec/${token}`;
}

/** The recurrence a location serves, found by its token (any account: the token is the capability). */
export async function findRecByLocationToken(
  sql: Sql,
  token: string,
): Promise<{ account_id: number; id_rec: string | null } | undefined> {
  const { rows } = await sql.query<{ account_id: number; id_rec: string | null }>(
    `select l.account_id, r.id_rec from recurrence_locations l left join recurrences r on r.location_id = l.id
     where l.token = $1`,
    [token],
  );
  return rows[0];
}
