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
  error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

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

/** The account's e-mails, newest first. */
export async function mailOf(sql: Sql, accountId: number, limit: number): Promise<MailRow[]> {
  const { rows } = await sql.query<MailRow>(
    `select id, account_id, to_address, subject, body, reference, status, error, created_at, sent_at from mail_outbox
     where account_id = $1 order by id desc limit $2`,
    [accountId, limit],
  );
  return rows;
}
