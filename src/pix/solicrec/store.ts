/** Storage of requests to confirm a recurrence (table `recurrence_requests`, migration 017). */
import type { Sql } from '../../platform/db/database.ts';
import type { SolicRecCreate, SolicRecStatus } from './schemas.ts';

export interface SolicRecRow {
  id: number;
  account_id: number;
  id_solic_rec: string;
  recurrence_id: number;
  status: SolicRecStatus;
  body: Pick<SolicRecCreate, 'calendario' | 'destinatario'>;
  expires_at: Date;
  atualizacao: { status: SolicRecStatus; data: string }[];
  created_at: Date;
  /** From the recurrence. */
  id_rec: string;
}

const SELECT = `select s.id, s.account_id, s.id_solic_rec, s.recurrence_id, s.status, s.body, s.expires_at, s.atualizacao,
  s.created_at, r.id_rec from recurrence_requests s join recurrences r on r.id = s.recurrence_id`;

/** Undefined when the recurrence already has an open request (the partial unique index). */
export async function insertSolicRec(
  sql: Sql,
  r: Pick<SolicRecRow, 'account_id' | 'id_solic_rec' | 'recurrence_id' | 'body' | 'expires_at'>,
  now: Date,
): Promise<number | undefined> {
  const { rows } = await sql.query<{ id: number }>(
    `insert into recurrence_requests (account_id, id_solic_rec, recurrence_id, status, body, expires_at, atualizacao,
       created_at, updated_at)
     values ($1, $2, $3, 'CRIADA', $4, $5, $6, $7, $7)
     on conflict (recurrence_id) where status in ('CRIADA', 'ENVIADA', 'RECEBIDA') do nothing returning id`,
    [
      r.account_id,
      r.id_solic_rec,
      r.recurrence_id,
      JSON.stringify(r.body),
      r.expires_at,
      JSON.stringify([{ status: 'CRIADA', data: now.toISOString() }]),
      now,
    ],
  );
  return rows[0]?.id;
}

export async function findSolicRec(
  sql: Sql,
  accountId: number,
  idSolicRec: string,
  lock = false,
): Promise<SolicRecRow | undefined> {
  const { rows } = await sql.query<SolicRecRow>(
    `${SELECT} where s.account_id = $1 and s.id_solic_rec = $2${lock ? ' for update of s' : ''}`,
    [accountId, idSolicRec],
  );
  return rows[0];
}

export async function findSolicRecById(sql: Sql, id: number, lock = false): Promise<SolicRecRow | undefined> {
  const { rows } = await sql.query<SolicRecRow>(`${SELECT} where s.id = $1${lock ? ' for update of s' : ''}`, [id]);
  return rows[0];
}

export async function updateSolicRec(
  sql: Sql,
  row: Pick<SolicRecRow, 'id' | 'status' | 'atualizacao'>,
  now: Date,
): Promise<void> {
  await sql.query('update recurrence_requests set status = $2, atualizacao = $3, updated_at = $4 where id = $1', [
    row.id,
    row.status,
    JSON.stringify(row.atualizacao),
    now,
  ]);
}
