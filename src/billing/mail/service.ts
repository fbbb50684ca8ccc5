/**
 * Billing e-mails (sendBilletEmail, sendCarnetEmail, sendCarnetParcelEmail): each one is a row of the mail
 * outbox. In the sandbox the outbox is the mailbox: the e-mail is kept there, marked sent, and listed by
 * `GET /sandbox/billing/mail` and the console; nothing leaves the machine. A production node would hand the
 * outbox to SMTP; pixd has no SMTP sender yet, so there the request is refused with `mail_not_configured`
 * (503) rather than accepted and never delivered (docs/billing.md, "E-mails").
 */
import type { Sql } from '../../platform/db/database.ts';
import { billingError } from '../shared/errors.ts';
import { insertMail } from './store.ts';

export interface Mailer {
  /** Whether e-mails are kept in the outbox (the sandbox), or there is no way to send them (production today). */
  captures: boolean;
}

export async function sendBillingMail(
  sql: Sql,
  mailer: Mailer,
  mail: { accountId: number; to: string; subject: string; body: string; reference: string },
  now: Date,
): Promise<number> {
  if (!mailer.captures)
    throw billingError(
      503,
      'mail_not_configured',
      'Envio de e-mail não configurado neste nó: pixd não tem um servidor SMTP configurado.',
    );
  return insertMail(
    sql,
    {
      account_id: mail.accountId,
      to_address: mail.to,
      subject: mail.subject,
      body: mail.body,
      reference: mail.reference,
      status: 'sent',
      sent_at: now,
    },
    now,
  );
}
