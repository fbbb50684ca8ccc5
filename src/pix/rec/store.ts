/** Storage of recurrences (table `recurrences`, migration 014). */
import type { Sql } from '../../platform/db/database.ts';
import type { DadosPagador, RecCreate, RecStatus } from './schemas.ts';

/** What the receiver asked for, kept as given (less the fields that are columns). */
export type RecBody = Pick<RecCreate, 'vinculo' | 'calendario' | 'valor' | 'recebedor'>;

export interface RecAtualizacao {
  status: RecStatus;
  data: string;
}

export interface RecEncerramento {
  rejeicao?: { codigo: string; descricao: string };
  cancelamento?: { solicitante: string; codigo: string; descricao: string };
}

export interface RecRow {
  id: number;
  account_id: number;
  id_rec: string;
  status: RecStatus;
  politica_retentativa: 'NAO_PERMITE' | 'PERMITE_3R_7D';
  body: RecBody;
  txid: string | null;
  tipo_jornada: string;
  pagador: DadosPagador | null;
  encerramento: RecEncerramento | null;
  atualizacao: RecAtualizacao[];
  devedor_documento: string;
  location_id: number | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, account_id, id_rec, status, politica_retentativa, body, txid, tipo_jornada, pagador, encerramento,
  atualizacao, devedor_documento, location_id, created_at, updated_at`;

export async function insertRec(
  sql: Sql,
  r: Pick<RecRow, 'account_id' | 'id_rec' | 'politica_retentativa' | 'body' | 'txid' | 'devedor_documento'>,
  now: Date,
): Promise<RecRow> {
  const atualizacao: RecAtualizacao[] = [{ status: 'CRIADA', data: now.toISOString() }];
  const { rows } = await sql.query<RecRow>(
    `insert into recurrences (account_id, id_rec, status, politica_retentativa, body, txid, atualizacao,
       devedor_documento, created_at, updated_at)
     values ($1, $2, 'CRIADA', $3, $4, $5, $6, $7, $8, $8) returning ${COLUMNS}`,
    [
      r.account_id,
      r.id_rec,
      r.politica_retentativa,
      JSON.stringify(r.body),
      r.txid,
      JSON.stringify(atualizacao),
      r.devedor_documento,
      now,
    ],
  );
  return rows[0];
}

/** The owner's recurrence; `lock` serialises state changes of one recurrence. */
export async function findRec(sql: Sql, accountId: number, idRec: string, lock = false): Promise<RecRow | undefined> {
  const { rows } = await sql.query<RecRow>(
    `select ${COLUMNS} from recurrences where account_id = $1 and id_rec = $2${lock ? ' for update' : ''}`,
    [accountId, idRec],
  );
  return rows[0];
}

/**
 * The recurrence an immediate charge is paired with (journey 3: `ativacao.dadosJornada.txid`), with its
 * location's token; the most recent if several name it.
 */
export async function findRecByJourneyTxid(
  sql: Sql,
  accountId: number,
  txid: string,
): Promise<{ id_rec: string; loc_token: string | null } | undefined> {
  const { rows } = await sql.query<{ id_rec: string; loc_token: string | null }>(
    `select r.id_rec, l.token as loc_token from recurrences r left join recurrence_locations l on l.id = r.location_id
     where r.account_id = $1 and r.txid = $2 order by r.id desc limit 1`,
    [accountId, txid],
  );
  return rows[0];
}

/** Writes the mutable part of a recurrence back (the service decided the change). */
export async function updateRec(
  sql: Sql,
  row: Pick<RecRow, 'id' | 'status' | 'body' | 'txid' | 'tipo_jornada' | 'pagador' | 'encerramento' | 'atualizacao'>,
  now: Date,
): Promise<void> {
  await sql.query(
    `update recurrences set status = $2, body = $3, txid = $4, tipo_jornada = $5, pagador = $6, encerramento = $7,
       atualizacao = $8, updated_at = $9 where id = $1`,
    [
      row.id,
      row.status,
      JSON.stringify(row.body),
      row.txid,
      row.tipo_jornada,
      row.pagador === null ? null : JSON.stringify(row.pagador),
      row.encerramento === null ? null : JSON.stringify(row.encerramento),
      JSON.stringify(row.atualizacao),
      now,
    ],
  );
}

export interface RecListFilter {
  accountId: number;
  inicio: Date;
  fim: Date;
  documento?: string;
  status?: RecStatus;
  convenio?: string;
  locationPresente?: boolean;
}

export async function listRecs(
  sql: Sql,
  f: RecListFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: RecRow[]; total: number }> {
  const params: unknown[] = [f.accountId, f.inicio, f.fim];
  let where = 'account_id = $1 and created_at >= $2 and created_at <= $3';
  if (f.documento) {
    params.push(f.documento);
    where += ` and devedor_documento = $${params.length}`;
  }
  if (f.status) {
    params.push(f.status);
    where += ` and status = $${params.length}`;
  }
  if (f.convenio) {
    params.push(f.convenio);
    where += ` and body->'recebedor'->>'convenio' = $${params.length}`;
  }
  if (f.locationPresente !== undefined)
    where += f.locationPresente ? ' and location_id is not null' : ' and location_id is null';
  const count = await sql.query<{ n: number }>(`select count(*)::int as n from recurrences where ${where}`, params);
  const { rows } = await sql.query<RecRow>(
    `select ${COLUMNS} from recurrences where ${where} order by created_at, id
     limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, pageSize, page * pageSize],
  );
  return { rows, total: count.rows[0].n };
}

/** The account's most recently changed recurrence. */
export async function latestRec(sql: Sql, accountId: number): Promise<RecRow | undefined> {
  const { rows } = await sql.query<RecRow>(
    `select ${COLUMNS} from recurrences where account_id = $1 order by updated_at desc, id desc limit 1`,
    [accountId],
  );
  return rows[0];
}
