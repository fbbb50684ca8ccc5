/** SQL of enrolments: rows, state changes under lock, and the keyset page of the list. */
import type { Sql } from '../../platform/db/database.ts';
import { findConsentRecord, type ConsentRecordKey } from '../consent/store.ts';
import type { EnrolmentStatus } from '../shared.ts';
import type { EnrolmentBody } from './schemas.ts';

export interface EnrolmentRow {
  id: number;
  account_id: number;
  identificador: string;
  status: EnrolmentStatus;
  motivo: string | null;
  body: EnrolmentBody;
  id_proprio: string | null;
  documento: string;
  consent_token: string;
  consent_expires_at: Date;
  idempotency_key: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Undefined when the account already made an enrolment under the same idempotency key (a concurrent twin
 * waits for the first to commit, then inserts nothing): the caller reads that one.
 */
export async function insertEnrolment(
  sql: Sql,
  row: Omit<EnrolmentRow, 'id' | 'motivo' | 'updated_at'>,
): Promise<EnrolmentRow | undefined> {
  const { rows } = await sql.query<EnrolmentRow>(
    `insert into of_enrolments (account_id, identificador, status, body, id_proprio, documento, consent_token,
       consent_expires_at, idempotency_key, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
     on conflict (account_id, idempotency_key) do nothing returning *`,
    [
      row.account_id,
      row.identificador,
      row.status,
      JSON.stringify(row.body),
      row.id_proprio,
      row.documento,
      row.consent_token,
      row.consent_expires_at,
      row.idempotency_key,
      row.created_at,
    ],
  );
  return rows[0];
}

export function findEnrolment(sql: Sql, by: ConsentRecordKey, lock = false): Promise<EnrolmentRow | undefined> {
  return findConsentRecord<EnrolmentRow>(sql, 'of_enrolments', '*', by, lock);
}

export async function setEnrolmentStatus(
  sql: Sql,
  id: number,
  status: EnrolmentStatus,
  motivo: string | null,
  now: Date,
): Promise<EnrolmentRow> {
  const { rows } = await sql.query<EnrolmentRow>(
    'update of_enrolments set status = $2, motivo = $3, updated_at = $4 where id = $1 returning *',
    [id, status, motivo, now],
  );
  return rows[0];
}

export interface EnrolmentFilter {
  accountId: number;
  from: Date;
  to: Date;
  status?: string;
  identificador?: string;
  idProprio?: string;
  documento?: string;
}

/** A position in (created_at, id) order: after or before a row, or the last page. */
export type PagePosition = { after: [Date, number] } | { before: [Date, number] } | { last: true } | { first: true };

function filterSql(f: EnrolmentFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [f.accountId, f.from, f.to];
  const clauses = ['account_id = $1', 'created_at >= $2', 'created_at <= $3'];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    params.push(value);
    clauses.push(`${column} = $${params.length}`);
  };
  add('status', f.status);
  add('identificador', f.identificador);
  add('id_proprio', f.idProprio);
  add('documento', f.documento);
  return { where: clauses.join(' and '), params };
}

/**
 * One page by keyset on the (account, created_at, id) index: the statement reads at most `size + 1` rows
 * wherever the page is, so a page of a 100,000-row list costs what the first page costs.
 */
export async function enrolmentPage(
  sql: Sql,
  filter: EnrolmentFilter,
  position: PagePosition,
  size: number,
): Promise<{ rows: EnrolmentRow[]; more: boolean }> {
  const { where, params } = filterSql(filter);
  const backwards = 'before' in position || 'last' in position;
  let keyset = '';
  if ('after' in position || 'before' in position) {
    const [at, id] = 'after' in position ? position.after : position.before;
    params.push(at, id);
    keyset = ` and (created_at, id) ${backwards ? '<' : '>'} ($${params.length - 1}, $${params.length})`;
  }
  params.push(size + 1);
  const order = backwards ? 'desc' : 'asc';
  const { rows } = await sql.query<EnrolmentRow>(
    `select * from of_enrolments where ${where}${keyset} order by created_at ${order}, id ${order} limit $${params.length}`,
    params,
  );
  const more = rows.length > size;
  const page = rows.slice(0, size);
  return { rows: backwards ? page.reverse() : page, more };
}

export async function countEnrolments(sql: Sql, filter: EnrolmentFilter): Promise<number> {
  const { where, params } = filterSql(filter);
  const { rows } = await sql.query<{ n: string }>(`select count(*) as n from of_enrolments where ${where}`, params);
  return Number(rows[0].n);
}
