/**
 * Starting Open Finance Pix payments: immediate, scheduled on a date, recurring on a schedule (each with a
 * consent link the payer opens at their institution's page), and biometric (on an authorised link, no page:
 * authorised at once). Rules the schema cannot say are checked here, each refusal a `{nome, mensagem}` naming
 * the field. The money goes to the application's own account (docs/open-finance-pix.md, "Who receives").
 */
import { randomUUID } from 'node:crypto';
import { findAccount } from '../../accounts/store.ts';
import { brasiliaDate, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import type { Sql } from '../../platform/db/database.ts';
import { isValidCnpj, isValidCpf } from '../../platform/documents.ts';
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount, parseAmount } from '../../platform/money.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { findOfConfig } from '../config/store.ts';
import { consentUri, enqueueConsentExpiryJob, newConsentLink, redirectWith } from '../consent/journey.ts';
import { ENROLMENT_ID_PREFIX } from '../enrolments/service.ts';
import { findLink, expireLinkIfDue } from '../links/store.ts';
import { findParticipant } from '../participants/store.ts';
import { ofError, ofInvalid } from '../shared.ts';
import { parcelDates } from './recurrence.ts';
import type { PixFavorecido, PixPagador, PixPaymentBody } from './schemas.ts';
import {
  findPixPayment,
  insertPixPayment,
  isActiveKeyOf,
  linkSpentCents,
  type PixKind,
  type PixPaymentRow,
} from './store.ts';
import { authorise, PIX_CONSENT_EXPIRY_TOPIC } from './transitions.ts';

const INVALID = 'pagamento_invalido';
const daysFrom = (date: string, days: number) => fromEpochDay(toEpochDay(date) + days);

export async function checkPagador(
  sql: Sql,
  pagador: PixPagador,
  sandbox: boolean,
  nome: 'pagamento_invalido' | 'vinculo_invalido',
) {
  if (!isValidCpf(pagador.cpf)) throw ofInvalid(nome, 'pagador.cpf', 'CPF com dígito verificador inválido.');
  if (pagador.cnpj !== undefined && !isValidCnpj(pagador.cnpj))
    throw ofInvalid(nome, 'pagador.cnpj', 'CNPJ com dígito verificador inválido.');
  if (!(await findParticipant(sql, sandbox, pagador.idParticipante)))
    throw ofInvalid(nome, 'pagador.idParticipante', 'não é um participante listado em GET /v1/participantes.');
}

/** The receiving account's number: the application's own, named by bank data, by one of its keys, or implied. */
async function receiverOf(sql: Sql, caller: Caller, favorecido: PixFavorecido | undefined): Promise<string> {
  const account = (await findAccount(sql, caller.accountId))!;
  const conta = favorecido?.contaBanco;
  if (conta && (conta.conta !== account.conta || conta.documento !== account.documento))
    throw ofInvalid(
      INVALID,
      'favorecido.contaBanco.conta',
      'o favorecido deve ser a própria conta da aplicação (conta e documento da conta no pixd).',
    );
  if (favorecido?.chave !== undefined) {
    if (!(await isActiveKeyOf(sql, favorecido.chave, caller.accountId)))
      throw ofInvalid(INVALID, 'favorecido.chave', 'não é uma chave Pix ativa da conta da aplicação.');
  }
  return account.conta;
}

/** The parcel dates of a payment of `kind`, checked against today on the account's clock. */
function datesOf(kind: PixKind, pagamento: PixPaymentBody['pagamento'], today: string): string[] {
  if (kind === 'imediato' || kind === 'biometria') return [today];
  const tomorrow = daysFrom(today, 1);
  if (kind === 'agendado') {
    const date = pagamento.dataAgendamento;
    if (date === undefined) throw ofInvalid(INVALID, 'pagamento.dataAgendamento', 'obrigatório num Pix agendado.');
    const last = daysFrom(today, LIMITS.ofScheduleMaxDays);
    if (date < tomorrow || date > last)
      throw ofInvalid(INVALID, 'pagamento.dataAgendamento', `fora do período permitido (de ${tomorrow} a ${last}).`);
    return [date];
  }
  const result = parcelDates(pagamento.recorrencia!);
  if ('field' in result) throw ofInvalid(INVALID, result.field, result.reason);
  const last = daysFrom(today, LIMITS.ofRecurringHorizonDays);
  if (result.dates[0] < tomorrow)
    throw ofInvalid(
      INVALID,
      'pagamento.recorrencia',
      `a primeira data (${result.dates[0]}) deve ser a partir de ${tomorrow}.`,
    );
  if (result.dates.at(-1)! > last)
    throw ofInvalid(INVALID, 'pagamento.recorrencia', `a última data (${result.dates.at(-1)}) passa de ${last}.`);
  if (result.dates.length > LIMITS.ofRecurringParcelsMax)
    throw ofInvalid(INVALID, 'pagamento.recorrencia', `no máximo ${LIMITS.ofRecurringParcelsMax} pagamentos.`);
  return result.dates;
}

async function requireConfig(sql: Sql, caller: Caller) {
  const config = await findOfConfig(sql, caller.accountId);
  if (!config)
    throw ofError(
      422,
      'configuracao_ausente',
      'Nenhum endereço de retorno configurado: envie PUT /v1/config com redirectURL antes de iniciar pagamentos.',
    );
  return config;
}

export interface StartOptions {
  sandbox: boolean;
  idempotencyKey?: string;
  /** A replacement of a recurring payment's parcel: that parcel, and the date and amount the new one takes. */
  replaces?: { parcelId: number; data: string };
}

/** Writes the payment `pendente` with its consent link (or, on a biometric link, authorised at once). */
export async function insertStarted(
  sql: Sql,
  caller: Caller,
  kind: PixKind,
  body: PixPaymentBody,
  options: StartOptions & { linkId?: number },
): Promise<PixPaymentRow> {
  const amountCents = parseAmount(body.pagamento.valor);
  if (amountCents <= 0) throw ofInvalid(INVALID, 'pagamento.valor', 'deve ser maior que zero.');
  const today = brasiliaDate(caller.now);
  const biometric = options.linkId !== undefined;
  const row = await insertPixPayment(sql, {
    account_id: caller.accountId,
    identificador: `${ENROLMENT_ID_PREFIX}${randomUUID()}`,
    kind,
    status: 'pendente',
    body,
    amount_cents: amountCents,
    id_proprio: body.pagamento.idProprio ?? null,
    receiver_conta: await receiverOf(sql, caller, body.favorecido),
    dates: options.replaces ? [options.replaces.data] : datesOf(kind, body.pagamento, today),
    link_id: options.linkId ?? null,
    replaces_parcel_id: options.replaces?.parcelId ?? null,
    ...(biometric ? { consent_token: null, consent_expires_at: null } : newConsentLink(caller.now)),
    authorised_at: null,
    idempotency_key: options.idempotencyKey ?? null,
    created_at: caller.now,
  });
  // A concurrent twin under the same idempotency key made it: that one is the answer.
  if (!row)
    return (await findPixPayment(sql, { accountId: caller.accountId, idempotencyKey: options.idempotencyKey! }))!;
  if (biometric) await authorise(sql, row, caller.now, options.sandbox);
  else
    await enqueueConsentExpiryJob(
      sql,
      PIX_CONSENT_EXPIRY_TOPIC,
      { id: row.id, account_id: row.account_id, consent_expires_at: row.consent_expires_at! },
      caller.now,
    );
  return row;
}

const earlierByKey = (sql: Sql, caller: Caller, idempotencyKey: string | undefined) =>
  idempotencyKey === undefined ? undefined : findPixPayment(sql, { accountId: caller.accountId, idempotencyKey });

/** POST /v1/pagamentos/pix, /v1/pagamentos-agendados/pix, /v1/pagamentos-recorrentes/pix. */
export async function startPixPayment(
  sql: Sql,
  caller: Caller,
  kind: 'imediato' | 'agendado' | 'recorrente',
  body: PixPaymentBody,
  options: StartOptions,
): Promise<{ identificadorPagamento: string; redirectURI: string }> {
  const answer = (row: PixPaymentRow) => ({
    identificadorPagamento: row.identificador,
    redirectURI: consentUri(caller.publicUrl, row.consent_token!),
  });
  const earlier = await earlierByKey(sql, caller, options.idempotencyKey);
  if (earlier) return answer(earlier);
  await requireConfig(sql, caller);
  await checkPagador(sql, body.pagador, options.sandbox, INVALID);
  return answer(await insertStarted(sql, caller, kind, body, options));
}

/**
 * POST /v1/pagamentos-biometria/pix: a payment on an authorised link, within its limits, authorised at once
 * (the payer's biometrics are their institution's business; no page). `redirectURI` is the application's own
 * `redirectURL` with the outcome, as after a page.
 */
export async function startBiometricPayment(
  sql: Sql,
  caller: Caller,
  body: { identificadorVinculo: string; favorecido: PixFavorecido; pagamento: PixPaymentBody['pagamento'] },
  options: StartOptions,
): Promise<{ identificadorPagamento: string; redirectURI: string }> {
  const config = await requireConfig(sql, caller);
  const answer = (row: PixPaymentRow) => ({
    identificadorPagamento: row.identificador,
    redirectURI: redirectWith(config.redirect_url, { identificadorPagamento: row.identificador, status: row.status }),
  });
  const earlier = await earlierByKey(sql, caller, options.idempotencyKey);
  if (earlier) return answer(earlier);
  const found = await findLink(sql, { accountId: caller.accountId, identificador: body.identificadorVinculo }, true);
  if (!found) throw ofError(404, 'vinculo_nao_encontrado', `Vínculo ${body.identificadorVinculo} não encontrado.`);
  const link = await expireLinkIfDue(sql, found, caller.now);
  if (link.status !== 'autorizado')
    throw ofError(
      422,
      'vinculo_nao_autorizado',
      `O vínculo ${link.identificador} está ${link.status}: não aceita pagamentos.`,
    );
  if (link.expires_at! <= caller.now)
    throw ofError(
      422,
      'vinculo_nao_autorizado',
      `O vínculo ${link.identificador} expirou em ${link.expires_at!.toISOString()}.`,
    );
  const amountCents = parseAmount(body.pagamento.valor);
  if (amountCents > link.transaction_limit_cents)
    throw ofError(
      422,
      'pagamento_limite_excedido',
      `pagamento.valor: acima do limite por transação do vínculo (${formatAmount(link.transaction_limit_cents)}).`,
    );
  const spent = await linkSpentCents(sql, link.id, brasiliaDate(caller.now));
  if (spent + amountCents > link.daily_limit_cents)
    throw ofError(
      422,
      'pagamento_limite_excedido',
      `pagamento.valor: passa do limite diário do vínculo (${formatAmount(link.daily_limit_cents)}; já usados ${formatAmount(spent)}).`,
    );
  const pix: PixPaymentBody = { pagador: link.pagador, favorecido: body.favorecido, pagamento: body.pagamento };
  return answer(await insertStarted(sql, caller, 'biometria', pix, { ...options, linkId: link.id }));
}
