/** SQL of the mail outbox (mail_outbox): the billing e-mails pixd sends or, in the sandbox, keeps to be read. */
import type { Sql } from '../../platform/db/database.ts';

export interface MailRow {
  id: number;
  account_id: number;
  to_address: string;
  subject: string;
  body: string;
  reference: string;
  status: 'queued' | 'sent' | 'failed';
  /** SMTP attempts made (0: kept in the sandbox's mailbox, or not tried yet). */
  attempts: number;
  /** The last failed attempt's reason. */
  error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

const COLUMNS = 'id, account_id, to_address, subject, body, reference, status, attempts, error, created_at, sent_at';

export async function insertMail(
  sql: Sql,
  m: Pick<MailRow, 'account_id' | 'to_address' | 'subject' | 'body' | 'reference' | 'status' | 'sent_at'>,
  now: Date,
): Promise<number> {
  const { rows } = await sql.query<{ id: number }>(
    `insert into mail_outbox (account_id, to_address, subject, body, reference, status, sent_at, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`,
    [m.account_id, m.to_address, m.subject, m.body, m.reference, m.status, m.sent_at, now],
  );
  return Number(rows[0].id);
}

export async function findMail(sql: Sql, id: number): Promise<MailRow | undefined> {
  const { rows } = await sql.query<MailRow>(`select ${COLUMNS} from mail_outbox where id = $1`, [id]);
  return rows[0] && { ...rows[0], attempts: Number(rows[0].attempts) };
}

/** One SMTP attempt's outcome, counted. */
export async function recordMailAttempt(
  sql: Sql,
  id: number,
  outcome: { status: MailRow['status']; error: string | null; sentAt: Date | null },
): Promise<void> {
  await sql.query(
    `update mail_outbox set status = $2, error = $3, sent_at = $4, attempts = attempts + 1 where id = $1`,
    [id, outcome.status, outcome.error, outcome.sentAt],
  );
}

/** The account's e-mails, newest first. */
export async function mailOf(sql: Sql, accountId: number, limit: number): Promise<MailRow[]> {
  const { rows } = await sql.query<MailRow>(
    `select ${COLUMNS} from mail_outbox where account_id = $1 order by id desc limit $2`,
    [accountId, limit],
  );
  return rows;
}
