/** Storage of CNAB statement files, their schedules and the accounts' SFTP keys. */
import type { Sql } from '../../platform/db/database.ts';

export interface StatementFileRow {
  name: string;
  generated_at: Date;
  /** YYYY-MM-DD. */
  period_start: string;
  period_end: string;
  size_bytes: number;
}

const FILE_COLUMNS = `name, generated_at, to_char(period_start, 'YYYY-MM-DD') as period_start,
  to_char(period_end, 'YYYY-MM-DD') as period_end, size_bytes`;

/** The next file's sequence number (NSA) of the account. */
export async function nextFileSequence(sql: Sql, accountId: number): Promise<number> {
  const { rows } = await sql.query<{ next: number }>(
    'select count(*)::int + 1 as next from statement_files where account_id = $1',
    [accountId],
  );
  return rows[0].next;
}

/** Stores a file unless the account already has one of the period (a job delivered twice, two schedules). */
export async function insertFileOnce(
  sql: Sql,
  f: {
    accountId: number;
    name: string;
    periodStart: string;
    periodEnd: string;
    sequence: number;
    at: Date;
    content: string;
    /** Of what is served (files.ts): the text, or its ZIP. */
    sizeBytes: number;
  },
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `insert into statement_files (account_id, name, period_start, period_end, sequence, generated_at, content, size_bytes)
     values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing`,
    [f.accountId, f.name, f.periodStart, f.periodEnd, f.sequence, f.at, f.content, f.sizeBytes],
  );
  return rowCount > 0;
}

export async function listFiles(sql: Sql, accountId: number): Promise<StatementFileRow[]> {
  const { rows } = await sql.query<StatementFileRow>(
    `select ${FILE_COLUMNS} from statement_files where account_id = $1 order by period_start, id`,
    [accountId],
  );
  return rows;
}

/** Only the owner finds a file: another account's name reads as absent. */
export async function fileContent(
  sql: Sql,
  accountId: number,
  name: string,
): Promise<{ content: string; generated_at: Date } | undefined> {
  const { rows } = await sql.query<{ content: string; generated_at: Date }>(
    'select content, generated_at from statement_files where account_id = $1 and name = $2',
    [accountId, name],
  );
  return rows[0];
}

export interface ScheduleRow {
  id: number;
  public_id: string;
  account_id: number;
  periodicidade: Periodicidade;
  status: ScheduleStatus;
  envia_email: boolean;
  comprimir_arquivos: boolean;
  next_run_at: Date | null;
  created_at: Date;
}

export type Periodicidade = 'diario' | 'semanal' | 'mensal';
export type ScheduleStatus = 'ativo' | 'inativo';

const SCHEDULE_COLUMNS =
  'id, public_id, account_id, periodicidade, status, envia_email, comprimir_arquivos, next_run_at, created_at';

export async function insertSchedule(
  sql: Sql,
  s: Omit<ScheduleRow, 'id' | 'status' | 'created_at'> & { now: Date },
): Promise<ScheduleRow> {
  const { rows } = await sql.query<ScheduleRow>(
    `insert into statement_schedules (public_id, account_id, periodicidade, status, envia_email, comprimir_arquivos, next_run_at, created_at, updated_at)
     values ($1, $2, $3, 'ativo', $4, $5, $6, $7, $7) returning ${SCHEDULE_COLUMNS}`,
    [s.public_id, s.account_id, s.periodicidade, s.envia_email, s.comprimir_arquivos, s.next_run_at, s.now],
  );
  return rows[0];
}

export async function listSchedules(sql: Sql, accountId: number): Promise<ScheduleRow[]> {
  const { rows } = await sql.query<ScheduleRow>(
    `select ${SCHEDULE_COLUMNS} from statement_schedules where account_id = $1 order by id`,
    [accountId],
  );
  return rows;
}

/** The account's schedule, locked; another account's reads as absent. */
export async function lockAccountSchedule(
  sql: Sql,
  accountId: number,
  publicId: string,
): Promise<ScheduleRow | undefined> {
  const { rows } = await sql.query<ScheduleRow>(
    `select ${SCHEDULE_COLUMNS} from statement_schedules where account_id = $1 and public_id = $2 for update`,
    [accountId, publicId],
  );
  return rows[0];
}

export async function findSchedule(sql: Sql, id: number): Promise<ScheduleRow | undefined> {
  const { rows } = await sql.query<ScheduleRow>(`select ${SCHEDULE_COLUMNS} from statement_schedules where id = $1`, [
    id,
  ]);
  return rows[0];
}

export async function lockSchedule(sql: Sql, id: number): Promise<ScheduleRow | undefined> {
  const { rows } = await sql.query<ScheduleRow>(
    `select ${SCHEDULE_COLUMNS} from statement_schedules where id = $1 for update`,
    [id],
  );
  return rows[0];
}

export async function updateSchedule(
  sql: Sql,
  id: number,
  s: Pick<ScheduleRow, 'periodicidade' | 'status' | 'envia_email' | 'comprimir_arquivos' | 'next_run_at'>,
  now: Date,
): Promise<ScheduleRow> {
  const { rows } = await sql.query<ScheduleRow>(
    `update statement_schedules set periodicidade = $2, status = $3, envia_email = $4, comprimir_arquivos = $5,
       next_run_at = $6, updated_at = $7 where id = $1 returning ${SCHEDULE_COLUMNS}`,
    [id, s.periodicidade, s.status, s.envia_email, s.comprimir_arquivos, s.next_run_at, now],
  );
  return rows[0];
}

/** A new key replaces the account's previous one. */
export async function saveSftpKey(sql: Sql, accountId: number, publicKey: string, now: Date): Promise<void> {
  await sql.query(
    `insert into statement_sftp_keys (account_id, public_key, created_at) values ($1, $2, $3)
     on conflict (account_id) do update set public_key = excluded.public_key, created_at = excluded.created_at`,
    [accountId, publicKey, now],
  );
}

/** The account an SFTP user name (the account's number) names, and its public key if it made one. */
export async function sftpKeyOf(
  sql: Sql,
  conta: string,
): Promise<{ accountId: number; publicKey: string } | undefined> {
  const { rows } = await sql.query<{ account_id: number; public_key: string }>(
    'select k.account_id, k.public_key from statement_sftp_keys k join accounts a on a.id = k.account_id where a.conta = $1',
    [conta],
  );
  return rows[0] && { accountId: rows[0].account_id, publicKey: rows[0].public_key };
}
