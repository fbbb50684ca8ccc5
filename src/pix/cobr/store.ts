/** Storage of recurring charges (table `recurring_charges`, migration 016). */
import type { Sql } from '../../platform/db/database.ts';
import type { CobrCreate, CobrStatus } from './schemas.ts';

export interface TentativaRow {
  dataLiquidacao: string;
  tipo: 'AGND' | 'NTAG' | 'RIFL';
  status: 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';
  endToEndId: string;
  atualizacao: { status: string; data: string }[];
  rejeicao?: { codigo: string; descricao: string };
}

export interface CobrRow {
  id: number;
  account_id: number;
  recurrence_id: number;
  txid: string;
  status: CobrStatus;
  body: CobrCreate;
  amount_cents: number;
  due_date: string;
  atualizacao: { status: CobrStatus; data: string }[];
  tentativas: TentativaRow[];
  encerramento: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  /** From the recurrence. */
  id_rec: string;
  politica_retentativa: 'NAO_PERMITE' | 'PERMITE_3R_7D';
}

/** A CobrRow's columns and the join they come from (`c` the charge, `r` its recurrence). */
export const COBR_COLUMNS = `c.id, c.account_id, c.recurrence_id, c.txid, c.status, c.body, c.amount_cents::int as amount_cents,
  c.due_date, c.atualizacao, c.tentativas, c.encerramento, c.created_at, c.updated_at, r.id_rec, r.politica_retentativa`;
export const COBR_FROM = 'recurring_charges c join recurrences r on r.id = c.recurrence_id';
const SELECT = `select ${COBR_COLUMNS} from ${COBR_FROM}`;

export async function insertCobr(
  sql: Sql,
  r: Pick<CobrRow, 'account_id' | 'recurrence_id' | 'txid' | 'body' | 'amount_cents' | 'due_date' | 'tentativas'>,
  now: Date,
): Promise<number | undefined> {
  const { rows } = await sql.query<{ id: number }>(
    `insert into recurring_charges (account_id, recurrence_id, txid, status, body, amount_cents, due_date, atualizacao,
       tentativas, created_at, updated_at)
     values ($1, $2, $3, 'CRIADA', $4, $5, $6, $7, $8, $9, $9)
     on conflict (account_id, txid) do nothing returning id`,
    [
      r.account_id,
      r.recurrence_id,
      r.txid,
      JSON.stringify(r.body),
      r.amount_cents,
      r.due_date,
      JSON.stringify([{ status: 'CRIADA', data: now.toISOString() }]),
      JSON.stringify(r.tentativas),
      now,
    ],
  );
  return rows[0]?.id;
}

export async function findCobr(sql: Sql, accountId: number, txid: string, lock = false): Promise<CobrRow | undefined> {
  const { rows } = await sql.query<CobrRow>(
    `${SELECT} where c.account_id = $1 and c.txid = $2${lock ? ' for update of c' : ''}`,
    [accountId, txid],
  );
  return rows[0];
}

export async function findCobrById(sql: Sql, id: number, lock = false): Promise<CobrRow | undefined> {
  const { rows } = await sql.query<CobrRow>(`${SELECT} where c.id = $1${lock ? ' for update of c' : ''}`, [id]);
  return rows[0];
}

export async function updateCobr(
  sql: Sql,
  row: Pick<CobrRow, 'id' | 'status' | 'atualizacao' | 'tentativas' | 'encerramento'>,
  now: Date,
): Promise<void> {
  await sql.query(
    `update recurring_charges set status = $2, atualizacao = $3, tentativas = $4, encerramento = $5, updated_at = $6
      where id = $1`,
    [
      row.id,
      row.status,
      JSON.stringify(row.atualizacao),
      JSON.stringify(row.tentativas),
      row.encerramento === null ? null : JSON.stringify(row.encerramento),
      now,
    ],
  );
}

/** The key a recurring charge is settled to: the account's oldest active key (none: the attempt fails). */
export async function settlementKey(sql: Sql, accountId: number): Promise<string | undefined> {
  const { rows } = await sql.query<{ chave: string }>(
    'select chave from pix_keys where account_id = $1 and removed_at is null order by created_at, chave limit 1',
    [accountId],
  );
  return rows[0]?.chave;
}

export interface CobrListFilter {
  accountId: number;
  inicio: Date;
  fim: Date;
  idRec?: string;
  documento?: string;
  status?: CobrStatus;
}

export async function listCobrs(
  sql: Sql,
  f: CobrListFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: CobrRow[]; total: number }> {
  const params: unknown[] = [f.accountId, f.inicio, f.fim];
  let where = 'c.account_id = $1 and c.created_at >= $2 and c.created_at <= $3';
  if (f.idRec) {
    params.push(f.idRec);
    where += ` and r.id_rec = $${params.length}`;
  }
  if (f.documento) {
    params.push(f.documento);
    where += ` and r.devedor_documento = $${params.length}`;
  }
  if (f.status) {
    params.push(f.status);
    where += ` and c.status = $${params.length}`;
  }
  const count = await sql.query<{ n: number }>(
    `select count(*)::int as n from recurring_charges c join recurrences r on r.id = c.recurrence_id where ${where}`,
    params,
  );
  const { rows } = await sql.query<CobrRow>(
    `${SELECT} where ${where} order by c.created_at, c.id limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, pageSize, page * pageSize],
  );
  return { rows, total: count.rows[0].n };
}

/** The account's most recently changed recurring charge. */
export async function latestCobr(sql: Sql, accountId: number): Promise<CobrRow | undefined> {
  const { rows } = await sql.query<CobrRow>(
    `${SELECT} where c.account_id = $1 order by c.updated_at desc, c.id desc limit 1`,
    [accountId],
  );
  return rows[0];
}
