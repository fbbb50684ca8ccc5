/** Storage of payload locations. The link to a charge lives on the charge (`charges.location_id`). */
import type { Sql } from '../../platform/db/database.ts';
import { randomHex } from '../../platform/ids.ts';

export type TipoCob = 'cob' | 'cobv';

export interface LocationRow {
  id: number;
  account_id: number;
  tipo_cob: TipoCob;
  token: string;
  created_at: Date;
}

/** A location and the charge it currently serves, if any. */
export interface LinkedLocationRow extends LocationRow {
  txid: string | null;
}

const COLUMNS = 'id, account_id, tipo_cob, token, created_at';
const LINKED = `select l.id, l.account_id, l.tipo_cob, l.token, l.created_at, c.txid
  from locations l left join charges c on c.location_id = l.id`;

/** 128 random bits, 32 hex characters: the shape location tokens have always had. */
const LOCATION_TOKEN_BYTES = 16;

/** The capability part of a location's URL: unguessable, so knowing it is what lets a payer read the charge. */
export function newLocationToken(): string {
  return randomHex(LOCATION_TOKEN_BYTES);
}

export async function insertLocation(sql: Sql, accountId: number, tipoCob: TipoCob, now: Date): Promise<LocationRow> {
  const { rows } = await sql.query<LocationRow>(
    `insert into locations (account_id, tipo_cob, token, created_at) values ($1, $2, $3, $4) returning ${COLUMNS}`,
    [accountId, tipoCob, newLocationToken(), now],
  );
  return rows[0];
}

/** Locks the location row: two charges claiming the same location serialise here. */
export async function lockLocation(sql: Sql, accountId: number, id: number): Promise<LocationRow | undefined> {
  const { rows } = await sql.query<LocationRow>(
    `select ${COLUMNS} from locations where account_id = $1 and id = $2 for update`,
    [accountId, id],
  );
  return rows[0];
}

/** Only the owner sees a location: another account's id reads as absent. */
export async function findLocation(sql: Sql, accountId: number, id: number): Promise<LinkedLocationRow | undefined> {
  const { rows } = await sql.query<LinkedLocationRow>(`${LINKED} where l.account_id = $1 and l.id = $2`, [
    accountId,
    id,
  ]);
  return rows[0];
}

/** Payers' institutions know a location only by its token (the capability URL); no owner check. */
export async function findLocationByToken(sql: Sql, token: string): Promise<LinkedLocationRow | undefined> {
  const { rows } = await sql.query<LinkedLocationRow>(`${LINKED} where l.token = $1`, [token]);
  return rows[0];
}

export interface LocationListFilter {
  accountId: number;
  inicio: Date;
  fim: Date;
  txIdPresente?: boolean;
  tipoCob?: TipoCob;
}

export async function listLocations(
  sql: Sql,
  f: LocationListFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: LinkedLocationRow[]; total: number }> {
  const params: unknown[] = [f.accountId, f.inicio, f.fim];
  let where = 'l.account_id = $1 and l.created_at >= $2 and l.created_at <= $3';
  if (f.tipoCob) {
    params.push(f.tipoCob);
    where += ` and l.tipo_cob = $${params.length}`;
  }
  if (f.txIdPresente !== undefined) where += f.txIdPresente ? ' and c.id is not null' : ' and c.id is null';
  const count = await sql.query<{ n: number }>(
    `select count(*)::int as n from locations l left join charges c on c.location_id = l.id where ${where}`,
    params,
  );
  const { rows } = await sql.query<LinkedLocationRow>(
    `${LINKED} where ${where} order by l.created_at, l.id limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, pageSize, page * pageSize],
  );
  return { rows, total: count.rows[0].n };
}

/**
 * Frees the location: the charge keeps its status and revision but no longer has a location (Bacen
 * DELETE /loc/{id}/txid), and the location may then serve another charge.
 */
export async function unlinkLocation(sql: Sql, locationId: number): Promise<void> {
  await sql.query('update charges set location_id = null where location_id = $1', [locationId]);
}

/**
 * The address payers' institutions fetch, without scheme as the Bacen standard writes it. Due charges
 * live under `/cobv/` as in the standard's `GET /cobv/{pixUrlAccessToken}`: payer apps and the official
 * SDK tell the charge type from that segment. Both paths are served for every token.
 */
export function locationAddress(publicUrl: string, token: string, tipoCob: TipoCob = 'cob'): string {
  return `${publicUrl.replace(/^https:\/\//, '')}/qr/v2/${tipoCob === 'cobv' ? 'cobv/' : ''}${token}`;
}

/** The token of one of our locations (scheme optional), or undefined for any other address. */
export function tokenFromAddress(publicUrl: string, address: string): string | undefined {
  const prefix = locationAddress(publicUrl, '');
  const path = address.replace(/^https:\/\//i, '');
  if (!path.toLowerCase().startsWith(prefix.toLowerCase())) return undefined;
  return /^(?:cobv\/)?([A-Za-z0-9]+)$/.exec(path.slice(prefix.length))?.[1];
}
