/**
 * The consent journey a payer completes in a browser. pixd plays the payer's institution named by
 * `pagador.idParticipante`: the page shows who asks, the account debited, the amounts and the schedule; the
 * payer "logs in" (the payer's CPF or CNPJ and the fixed password below, both shown on the page, since no real
 * institution is behind it) and approves or declines. The browser then goes back through pixd
 * (`/open-finance/retorno/<link>`) to the application's `redirectURL`, with the enrolment and the outcome in
 * the query. An unused link expires after `LIMITS.ofConsentLinkTtlSeconds` on the account's clock.
 */
import type { Sql } from '../../platform/db/database.ts';
import { findAccount } from '../../accounts/store.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { findOfConfig } from '../config/store.ts';
import { findEnrolment, type EnrolmentRow } from '../enrolments/store.ts';
import { expireIfDue, moveEnrolment } from '../enrolments/transitions.ts';
import { findParticipant, type Participant } from '../participants/store.ts';
import { schedulePayment } from '../payments/service.ts';

/** The simulated institution's password for every payer (shown on the page). */
export const CONSENT_PASSWORD = '123456';
export const DECLINED_REASON = 'Recusada pelo pagador na instituição.';

export interface ConsentView {
  enrolment: EnrolmentRow;
  participant: Participant | undefined;
  requester: { nome: string; documento: string };
  /** The login the sandbox page shows. */
  login: string;
  error?: string;
}

/** Who the link's enrolment belongs to decides whose clock applies. */
export type ClockOf = (accountId: number) => Date;

async function load(sql: Sql, token: string, now: ClockOf, sandbox: boolean): Promise<ConsentView | undefined> {
  const found = await findEnrolment(sql, { consentToken: token }, true);
  if (!found) return undefined;
  const enrolment = await expireIfDue(sql, found, now(found.account_id));
  const account = await findAccount(sql, enrolment.account_id);
  return {
    enrolment,
    participant: await findParticipant(sql, sandbox, enrolment.body.pagador.idParticipante),
    requester: { nome: account!.nome, documento: account!.documento },
    login: (enrolment.body.pagador.cpf ?? enrolment.body.pagador.cnpj)!,
  };
}

export const consentView = load;

export type Decision = 'autorizar' | 'recusar';

/**
 * The payer's answer. Undefined: no such link. A wrong login or a link no longer pending comes back as the
 * page to show again (with `error`); a decision moves the enrolment and answers the view after it.
 */
export async function decideConsent(
  sql: Sql,
  token: string,
  form: { login: string; senha: string; decisao: Decision },
  now: ClockOf,
  publicUrl: string,
  sandbox: boolean,
): Promise<{ view: ConsentView; decided: boolean } | undefined> {
  const view = await load(sql, token, now, sandbox);
  if (!view) return undefined;
  const { enrolment } = view;
  if (enrolment.status !== 'pendente') return { view, decided: false };
  if (form.login.replace(/\D/g, '') !== view.login || form.senha !== CONSENT_PASSWORD)
    return { view: { ...view, error: 'Documento ou senha incorretos.' }, decided: false };
  const at = now(enrolment.account_id);
  if (form.decisao === 'recusar') {
    const moved = await moveEnrolment(sql, enrolment, 'rejeitado', DECLINED_REASON, at);
    return { view: { ...view, enrolment: moved }, decided: true };
  }
  const moved = await moveEnrolment(sql, enrolment, 'autorizado', null, at);
  const first = moved.body.assinatura.configuracao.automatico.primeiroPagamento;
  if (first) {
    const caller: Caller = { accountId: moved.account_id, now: at, publicUrl, chargeCreated: [] };
    await schedulePayment(sql, caller, moved, first, sandbox, { first: true });
  }
  return { view: { ...view, enrolment: moved }, decided: true };
}

/** Where the browser goes once the payer decided: the application's redirectURL with the outcome in the query. */
export async function returnAddress(sql: Sql, token: string): Promise<string | undefined> {
  const enrolment = await findEnrolment(sql, { consentToken: token });
  if (!enrolment || enrolment.status === 'pendente') return undefined;
  const config = await findOfConfig(sql, enrolment.account_id);
  if (!config) return undefined;
  const url = new URL(config.redirect_url);
  url.searchParams.set('identificadorAdesao', enrolment.identificador);
  url.searchParams.set('status', enrolment.status);
  if (enrolment.motivo !== null) url.searchParams.set('motivo', enrolment.motivo);
  return url.toString();
}
