/** Storage of scheduled Pix. */
import type { Sql } from '../../platform/db/database.ts';
import type { ScheduleStatus } from './schemas.ts';

export type Destination = 'chave' | 'dados_bancarios';

export interface ScheduleRow {
  id: number;
  account_id: number;
  txid: string | null;
  end_to_end_id: string;
  end_user_account: string;
  destination: Destination;
  receiver_name: string;
  /** The sender's own key whose webhook is told when the Pix is sent; null: no webhook. */
  chave: string | null;
  amount_cents: number;
  scheduling_date: Date;
  status: ScheduleStatus;
  error_code: string | null;
  error_description: string | null;
}

const COLUMNS =
  'id, account_id, txid, end_to_end_id, end_user_account, destination, receiver_name, chave, amount_cents, scheduling_date, status, error_code, error_description';

export async function insertSchedule(
  sql: Sql,
  s: Omit<ScheduleRow, 'id' | 'status' | 'error_code' | 'error_description'>,
  now: Date,
): Promise<ScheduleRow> {
  const { rows } = await sql.query<ScheduleRow>(
    `insert into pix_schedules (account_id, txid, end_to_end_id, end_user_account, destination, receiver_name, chave, amount_cents, scheduling_date, status, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'scheduled', $10, $10) returning ${COLUMNS}`,
    [
      s.account_id,
      s.txid,
      s.end_to_end_id,
      s.end_user_account,
      s.destination,
      s.receiver_name,
      s.chave,
      s.amount_cents,
      s.scheduling_date,
      now,
    ],
  );
  return rows[0];
}

/** Locks the schedule for a transition: the scheduler's jobs may be delivered more than once. */
export async function lockSchedule(sql: Sql, id: number): Promise<ScheduleRow | undefined> {
  const { rows } = await sql.query<ScheduleRow>(`select ${COLUMNS} from pix_schedules where id = $1 for update`, [id]);
  return rows[0];
}

export async function setScheduleStatus(
  sql: Sql,
  id: number,
  status: ScheduleStatus,
  now: Date,
  error?: { code: string; description: string },
): Promise<void> {
  await sql.query(
    'update pix_schedules set status = $2, updated_at = $3, error_code = $4, error_description = $5 where id = $1',
    [id, status, now, error?.code ?? null, error?.description ?? null],
  );
}

/** Only the owner sees a schedule. */
export async function findScheduleByTxid(sql: Sql, accountId: number, txid: string): Promise<ScheduleRow | undefined> {
  const { rows } = await sql.query<ScheduleRow>(
    `select ${COLUMNS} from pix_schedules where account_id = $1 and txid = $2`,
    [accountId, txid],
  );
  return rows[0];
}

/** Schedules whose date falls in [inicio, fim], by date; one page and the total. */
export async function listSchedulesIn(
  sql: Sql,
  accountId: number,
  inicio: Date,
  fim: Date,
  offset: number,
  limit: number,
): Promise<{ rows: ScheduleRow[]; total: number }> {
  const where = 'where account_id = $1 and scheduling_date >= $2 and scheduling_date <= $3';
  const { rows } = await sql.query<ScheduleRow>(
    `select ${COLUMNS} from pix_schedules ${where} order by scheduling_date, id limit $4 offset $5`,
    [accountId, inicio, fim, limit, offset],
  );
  const count = await sql.query<{ total: number }>(`select count(*)::bigint as total from pix_schedules ${where}`, [
    accountId,
    inicio,
    fim,
  ]);
  return { rows, total: count.rows[0].total };
}

/** The account an operator names by its number (`conta`, as in credentials.json). */
export async function accountIdByConta(sql: Sql, conta: string): Promise<number | undefined> {
  const { rows } = await sql.query<{ id: number }>('select id from accounts where conta = $1', [conta]);
  return rows[0]?.id;
}
