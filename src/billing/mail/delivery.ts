/**
 * The SMTP sender of the mail outbox: one outbox job per e-mail (at least once), on a node given PIXD_SMTP_URL.
 * The mail row records the outcome: `queued` while trying (its `attempts` and the last `error`), `sent`, or
 * `failed` once the server refused it for good (a 5xx reply) or the attempts ran out. A server that is down or
 * answers 4xx is tried again with doubling pauses (LIMITS.mailRetry*). A message the server accepted but whose
 * acceptance was lost (a crash between the two) may be sent twice: at-least-once, as SMTP itself is.
 */
import type { Transporter } from 'nodemailer';
import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Database } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { defineTopic, type JobHandler } from '../../platform/outbox/jobs.ts';
import { findMail, recordMailAttempt } from './store.ts';

type MailJob = { mailId: number };

interface MailDeps {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'smtpUrl' | 'mailFrom'>;
}

/** The pause after the `attempt`-th failed attempt. */
const retryDelayMs = (attempt: number) =>
  Math.min(LIMITS.mailRetryFirstMs * 2 ** Math.min(attempt - 1, 30), LIMITS.mailRetryMaxMs);

/** nodemailer is loaded on a node given an SMTP server only (~40 ms of a start's CPU otherwise spent for nothing). */
async function smtpTransport(config: MailDeps['config']): Promise<Transporter | undefined> {
  if (!config.smtpUrl) return undefined;
  const timeoutMs = LIMITS.smtpTimeoutMs;
  const { createTransport } = await import('nodemailer');
  return createTransport(
    { url: config.smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs },
    { from: config.mailFrom },
  );
}

/** A permanent refusal (a 5xx reply: no such mailbox, message refused) is not retried. */
const permanent = (error: unknown) => Number((error as { responseCode?: number }).responseCode) >= 500;

const sendMail = ({ db, clock, config }: MailDeps): JobHandler<MailJob> => {
  let transport: Promise<Transporter | undefined> | undefined;
  return async (job) => {
    const mail = await findMail(db, job.payload.mailId);
    if (!mail || mail.status !== 'queued') return { done: true };
    const now = () => clock.forAccount(mail.account_id).now();
    const smtp = await (transport ??= smtpTransport(config));
    if (!smtp) {
      // A job queued while the node had SMTP, run after a restart without it: kept queued for when it has again.
      return { retryAt: new Date(now().getTime() + LIMITS.mailRetryMaxMs), error: 'PIXD_SMTP_URL não configurado' };
    }
    try {
      await smtp.sendMail({ to: mail.to_address, subject: mail.subject, text: mail.body });
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      const last = permanent(error) || mail.attempts + 1 >= LIMITS.mailAttemptsMax;
      await recordMailAttempt(db, mail.id, { status: last ? 'failed' : 'queued', error: message, sentAt: null });
      if (last) return { giveUp: message };
      return { retryAt: new Date(now().getTime() + retryDelayMs(mail.attempts + 1)), error: message };
    }
    await recordMailAttempt(db, mail.id, { status: 'sent', error: null, sentAt: now() });
    return { done: true };
  };
};

export const MAIL_TOPIC = defineTopic<MailJob, MailDeps>({ name: 'billing.mail.send', handler: sendMail });
