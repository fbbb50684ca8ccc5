/**
 * The consent journey every Open Finance product shares (automatic-payment enrolments, Pix payments, biometric
 * links): a link `CONSENT_PATH/<token>` the payer opens, a page of the payer's institution saying what is
 * asked, a sandbox login (the payer's document and `CONSENT_PASSWORD`, both on the page: no real institution
 * is behind it), a decision, and the way back to the application's `redirectURL` with the outcome in the
 * query. Each product is a `ConsentKind`: it finds its subject by token (locked, expired if due on the account's
 * clock), says what the page shows, and what approving or declining does. The links' 48 hex digits are
 * random, so a token names one subject of one kind.
 */
import { randomBytes } from 'node:crypto';
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { enqueue, type JobDeps, type JobOutcome, type OutboxJob, type Topic } from '../../platform/outbox/jobs.ts';
import { findOfConfig } from '../config/store.ts';
import type { Participant } from '../participants/store.ts';

export const CONSENT_PATH = '/open-finance/consentimento';
/** The simulated institution's password for every payer (shown on the page). */
export const CONSENT_PASSWORD = '123456';
export const DECLINED_REASON = 'Recusada pelo pagador na instituição.';
export const EXPIRED_LINK_REASON = `O link de consentimento não foi usado em ${LIMITS.ofConsentLinkTtlSeconds / 60} minutos e expirou.`;

/** Who the link's subject belongs to decides whose clock applies. */
export type ClockOf = (accountId: number) => Date;

/** A new link's secret and its deadline on the account's clock. */
export const newConsentLink = (now: Date) => ({
  consent_token: randomBytes(24).toString('hex'),
  consent_expires_at: new Date(now.getTime() + LIMITS.ofConsentLinkTtlSeconds * 1000),
});

export const consentUri = (publicUrl: string, token: string) => `${publicUrl}${CONSENT_PATH}/${token}`;

/** What a consent page shows: the institution, who asks for what, the account debited and the login. */
export interface ConsentPageModel {
  /** The product, under the institution's name: "Pix Automático", "Pagamento Pix", … */
  product: string;
  participant: Participant | undefined;
  heading: string;
  rows: [string, string][];
  /** The payer's account as the institution names it. */
  account: string;
  /** The login the sandbox page shows (the payer's document). */
  login: string;
  /** Once decided, expired or revoked: what happened, and why. */
  closed?: { text: string; motivo: string | null };
  error?: string;
}

export interface ConsentSubject {
  accountId: number;
  page: ConsentPageModel;
  /** Still waiting for the payer's decision. */
  pending: boolean;
  /** The payer approved (true) or declined, at `at`; in the caller's transaction. */
  decide(approve: boolean, at: Date, env: ConsentEnv): Promise<void>;
}

export interface ConsentEnv {
  publicUrl: string;
  sandbox: boolean;
}

export interface ConsentKind {
  /** The subject of `token`, locked, expired first if its deadline passed on its account's clock. */
  load(sql: Sql, token: string, now: ClockOf, sandbox: boolean): Promise<ConsentSubject | undefined>;
  /** Once decided: the account and what the application's `redirectURL` is given in its query. */
  outcome(sql: Sql, token: string): Promise<{ accountId: number; query: Record<string, string> } | undefined>;
}

export async function findConsent(
  sql: Sql,
  kinds: readonly ConsentKind[],
  token: string,
  now: ClockOf,
  sandbox: boolean,
): Promise<ConsentSubject | undefined> {
  for (const kind of kinds) {
    const subject = await kind.load(sql, token, now, sandbox);
    if (subject) return subject;
  }
  return undefined;
}

export type Decision = 'autorizar' | 'recusar';

/**
 * The payer's answer. Undefined: no such link. A wrong login or a link no longer pending comes back as the
 * subject to show again (with `error`); a decision is applied.
 */
export async function decideConsent(
  sql: Sql,
  kinds: readonly ConsentKind[],
  token: string,
  form: { login: string; senha: string; decisao: Decision },
  now: ClockOf,
  env: ConsentEnv,
): Promise<{ subject: ConsentSubject; decided: boolean } | undefined> {
  const subject = await findConsent(sql, kinds, token, now, env.sandbox);
  if (!subject) return undefined;
  if (!subject.pending) return { subject, decided: false };
  if (form.login.replace(/\D/g, '') !== subject.page.login || form.senha !== CONSENT_PASSWORD)
    return {
      subject: { ...subject, page: { ...subject.page, error: 'Documento ou senha incorretos.' } },
      decided: false,
    };
  await subject.decide(form.decisao === 'autorizar', now(subject.accountId), env);
  return { subject, decided: true };
}

/** Where the browser goes once the payer decided: the application's redirectURL with the outcome in the query. */
export async function returnAddress(sql: Sql, kinds: readonly ConsentKind[], token: string) {
  for (const kind of kinds) {
    const outcome = await kind.outcome(sql, token);
    if (!outcome) continue;
    const config = await findOfConfig(sql, outcome.accountId);
    if (!config) return undefined;
    return redirectWith(config.redirect_url, outcome.query);
  }
  return undefined;
}

export function redirectWith(redirectUrl: string, query: Record<string, string>): string {
  const url = new URL(redirectUrl);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * The handler of the outbox job that expires an unused link at its deadline (on the account's clock);
 * `expire` finds the subject by id, locked, and expires it if it is still pending and due (a page opened after
 * the deadline but before the job ran has already done it: the clock decides, not the job's turn).
 */
export const consentExpiryHandler =
  (expire: (sql: Sql, id: number, now: ClockOf) => Promise<void>) =>
  ({ db, clock }: JobDeps) =>
  async (job: OutboxJob<{ id: number }>): Promise<JobOutcome> => {
    await db.tx((sql) => expire(sql, job.payload.id, (accountId) => clock.forAccount(accountId).now()));
    return { done: true };
  };

export function enqueueConsentExpiryJob(
  sql: Sql,
  topic: Topic<{ id: number }>,
  row: { id: number; account_id: number; consent_expires_at: Date },
  now: Date,
) {
  return enqueue(sql, {
    topic,
    payload: { id: row.id },
    accountId: row.account_id,
    availableAt: row.consent_expires_at,
    now,
  });
}
