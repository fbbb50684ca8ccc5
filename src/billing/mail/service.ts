/**
 * Billing e-mails (sendBilletEmail, sendCarnetEmail, sendCarnetParcelEmail, links): each one is a row of the
 * mail outbox, written in the request's transaction. Where it goes depends on the node (docs/billing.md,
 * "E-mails"):
 * - `smtp` (PIXD_SMTP_URL set, either environment): the row is `queued` and an outbox job hands it to the SMTP
 *   server (delivery.ts), retried with back-off while the server does not take it; the caller never waits on it.
 * - `mailbox` (the sandbox without SMTP): the outbox is the mailbox: kept, marked sent, listed by
 *   `GET /sandbox/billing/mail` and the console; nothing leaves the machine.
 * - `none` (production without SMTP): refused with `mail_not_configured` (503) rather than accepted and never sent.
 */
import type { Config } from '../../config.ts';
import type { Sql } from '../../platform/db/database.ts';
import { enqueue } from '../../platform/outbox/jobs.ts';
import { billingError } from '../shared/errors.ts';
import { MAIL_TOPIC } from './delivery.ts';
import { insertMail } from './store.ts';

export interface Mailer {
  delivery: 'smtp' | 'mailbox' | 'none';
}

export const mailerOf = (config: Pick<Config, 'smtpUrl' | 'environment'>): Mailer => ({
  delivery: config.smtpUrl ? 'smtp' : config.environment === 'sandbox' ? 'mailbox' : 'none',
});

export async function sendBillingMail(
  sql: Sql,
  mailer: Mailer,
  mail: { accountId: number; to: string; subject: string; body: string; reference: string },
  now: Date,
): Promise<number> {
  if (mailer.delivery === 'none')
    throw billingError(
      503,
      'mail_not_configured',
      'Envio de e-mail não configurado neste nó: pixd não tem um servidor SMTP configurado.',
    );
  const smtp = mailer.delivery === 'smtp';
  const id = await insertMail(
    sql,
    {
      account_id: mail.accountId,
      to_address: mail.to,
      subject: mail.subject,
      body: mail.body,
      reference: mail.reference,
      status: smtp ? 'queued' : 'sent',
      sent_at: smtp ? null : now,
    },
    now,
  );
  if (smtp)
    await enqueue(sql, {
      topic: MAIL_TOPIC,
      payload: { mailId: id },
      accountId: mail.accountId,
      availableAt: now,
      now,
    });
  return id;
}
