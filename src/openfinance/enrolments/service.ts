/**
 * Enrolments: created `pendente` with a consent link (the payer decides in a browser, consent/), read in
 * keyset pages, revoked by the application. Rules the schema cannot say are checked here, each refusal a
 * `{nome, mensagem}` naming the field.
 */
import { randomUUID } from 'node:crypto';
import type { Sql } from '../../platform/db/database.ts';
import { isValidCnpj, isValidCpf } from '../../platform/documents.ts';
import { consentUri, newConsentLink } from '../consent/journey.ts';
import { LIMITS } from '../../platform/limits.ts';
import { parseAmount } from '../../platform/money.ts';
import { findAccount } from '../../accounts/store.ts';
import { brasiliaDate, brasiliaInstant } from '../../platform/calendar.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { findOfConfig } from '../config/store.ts';
import { findParticipant } from '../participants/store.ts';
import { ofError, ofInvalid } from '../shared.ts';
import type { EnrolmentBody, EnrolmentListQuery, EnrolmentPatch, EnrolmentView } from './schemas.ts';
import {
  countEnrolments,
  enrolmentPage,
  findEnrolment,
  insertEnrolment,
  type EnrolmentFilter,
  type EnrolmentRow,
  type PagePosition,
} from './store.ts';
import { enqueueConsentExpiry, expireIfDue, moveEnrolment } from './transitions.ts';

const INVALID = 'adesao_invalida';
export const ENROLMENT_ID_PREFIX = 'urn:pixd:';

export const enrolmentNotFound = (identificador: string) =>
  ofError(404, 'adesao_nao_encontrada', `Adesão ${identificador} não encontrada.`);

function checkDocument(field: string, value: string): void {
  const ok = value.length === 11 ? isValidCpf(value) : isValidCnpj(value);
  if (!ok) throw ofInvalid(INVALID, field, `${value.length === 11 ? 'CPF' : 'CNPJ'} com dígito verificador inválido.`);
}

/** Everything the schema cannot check: documents, who receives, dates in order, fixed XOR range. */
async function checkRules(sql: Sql, caller: Caller, body: EnrolmentBody, sandbox: boolean): Promise<void> {
  const { pagador, favorecido, assinatura } = body;
  if ((pagador.cpf === undefined) === (pagador.cnpj === undefined))
    throw ofInvalid(INVALID, 'pagador.cpf', 'informe o CPF ou o CNPJ do pagador (um dos dois).');
  if (pagador.cpf) checkDocument('pagador.cpf', pagador.cpf);
  if (pagador.cnpj) checkDocument('pagador.cnpj', pagador.cnpj);
  if (!(await findParticipant(sql, sandbox, pagador.idParticipante)))
    throw ofInvalid(INVALID, 'pagador.idParticipante', 'não é um participante listado em GET /v1/participantes.');
  const conta = favorecido.contaBanco;
  checkDocument('favorecido.contaBanco.documento', conta.documento);
  const account = await findAccount(sql, caller.accountId);
  if (conta.conta !== account?.conta || conta.documento !== account.documento)
    throw ofInvalid(
      INVALID,
      'favorecido.contaBanco.conta',
      'o favorecido deve ser a própria conta da aplicação (conta e documento da conta no pixd).',
    );
  const auto = assinatura.configuracao.automatico;
  const today = brasiliaDate(caller.now);
  if (auto.dataInicio < today)
    throw ofInvalid(INVALID, 'assinatura.configuracao.automatico.dataInicio', `anterior a hoje (${today}).`);
  if (assinatura.expiracao < auto.dataInicio)
    throw ofInvalid(INVALID, 'assinatura.expiracao', 'anterior a configuracao.automatico.dataInicio.');
  const fixed = auto.valorFixo !== undefined;
  const range = auto.valorMinimo !== undefined || auto.valorMaximo !== undefined;
  if (fixed === range)
    throw ofInvalid(
      INVALID,
      'assinatura.configuracao.automatico.valorFixo',
      'informe valorFixo ou a faixa valorMinimo/valorMaximo (um ou outro).',
    );
  for (const field of ['valorFixo', 'valorMinimo', 'valorMaximo'] as const) {
    const value = auto[field];
    if (value !== undefined && parseAmount(value) <= 0)
      throw ofInvalid(INVALID, `assinatura.configuracao.automatico.${field}`, 'deve ser maior que zero.');
  }
  if (auto.valorMinimo && auto.valorMaximo && parseAmount(auto.valorMinimo) > parseAmount(auto.valorMaximo))
    throw ofInvalid(INVALID, 'assinatura.configuracao.automatico.valorMinimo', 'maior que valorMaximo.');
  const first = auto.primeiroPagamento;
  if (first) {
    const field = 'assinatura.configuracao.automatico.primeiroPagamento';
    if (parseAmount(first.valor) <= 0) throw ofInvalid(INVALID, `${field}.valor`, 'deve ser maior que zero.');
    if (first.data < today || first.data > assinatura.expiracao)
      throw ofInvalid(INVALID, `${field}.data`, `fora do período da adesão (de ${today} a ${assinatura.expiracao}).`);
  }
}

const createdAnswer = (caller: Caller, row: EnrolmentRow) => ({
  identificadorAdesao: row.identificador,
  redirectURI: consentUri(caller.publicUrl, row.consent_token),
});

/**
 * `idempotencyKey` (the client's x-idempotency-key): a second creation under the same key answers the first
 * one's enrolment and creates nothing, whatever its body.
 */
export async function createEnrolment(
  sql: Sql,
  caller: Caller,
  body: EnrolmentBody,
  sandbox: boolean,
  idempotencyKey?: string,
): Promise<{ identificadorAdesao: string; redirectURI: string }> {
  const byKey = () =>
    idempotencyKey === undefined ? undefined : findEnrolment(sql, { accountId: caller.accountId, idempotencyKey });
  const earlier = await byKey();
  if (earlier) return createdAnswer(caller, earlier);
  if (!(await findOfConfig(sql, caller.accountId)))
    throw ofError(
      422,
      'configuracao_ausente',
      'Nenhum endereço de retorno configurado: envie PUT /v1/config com redirectURL antes de criar adesões.',
    );
  await checkRules(sql, caller, body, sandbox);
  const row = await insertEnrolment(sql, {
    account_id: caller.accountId,
    identificador: `${ENROLMENT_ID_PREFIX}${randomUUID()}`,
    status: 'pendente',
    body,
    id_proprio: body.assinatura.idProprio ?? null,
    documento: (body.pagador.cpf ?? body.pagador.cnpj)!,
    ...newConsentLink(caller.now),
    idempotency_key: idempotencyKey ?? null,
    created_at: caller.now,
  });
  if (!row) return createdAnswer(caller, (await byKey())!);
  await enqueueConsentExpiry(sql, row, caller.now);
  return createdAnswer(caller, row);
}

export function enrolmentView(row: EnrolmentRow): EnrolmentView {
  return {
    identificadorAdesao: row.identificador,
    status: row.status,
    ...(row.motivo !== null && { motivo: row.motivo }),
    dataCriacao: row.created_at.toISOString(),
    pagador: row.body.pagador,
    favorecido: row.body.favorecido,
    assinatura: row.body.assinatura,
  };
}

/** A date is the whole Brasília day; an instant is itself. */
const instant = (text: string, endOfDay: boolean) =>
  text.length === 10 ? brasiliaInstant(text, endOfDay ? '23:59:59.999' : '00:00:00.000') : new Date(text);

/** The opaque page position the links carry: `a.<ms>.<id>` after a row, `b.<ms>.<id>` before one, `u` the last page. */
function parsePosition(pagina: string | undefined): PagePosition {
  if (pagina === undefined) return { first: true };
  if (pagina === 'u') return { last: true };
  const match = /^([ab])\.(\d{1,15})\.(\d{1,18})$/.exec(pagina);
  if (!match) throw ofInvalid('parametro_invalido', 'pagina', 'posição de página inválida (use os links da resposta).');
  const key: [Date, number] = [new Date(Number(match[2])), Number(match[3])];
  return match[1] === 'a' ? { after: key } : { before: key };
}

export async function listEnrolments(sql: Sql, caller: Caller, query: EnrolmentListQuery) {
  const from = instant(query.inicio, false);
  const to = instant(query.fim, true);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from > to)
    throw ofInvalid('parametro_invalido', 'inicio', 'inicio e fim devem ser datas válidas, inicio antes de fim.');
  const filter: EnrolmentFilter = {
    accountId: caller.accountId,
    from,
    to,
    status: query.status,
    identificador: query.identificadorAdesao,
    idProprio: query.idProprio,
    documento: query.documento,
  };
  const position = parsePosition(query.pagina);
  const size = query.porPagina ?? LIMITS.ofEnrolmentsPerPage;
  const [{ rows, more }, total] = await Promise.all([
    enrolmentPage(sql, filter, position, size),
    countEnrolments(sql, filter),
  ]);
  const link = (pagina: string | undefined) => {
    const params = new URLSearchParams(
      Object.entries({ ...query, pagina })
        .filter(([, value]) => value !== undefined)
        .map(([name, value]) => [name, String(value)]),
    );
    return `/v1/pagamentos-automaticos/adesao?${params}`;
  };
  const key = (row: EnrolmentRow) => `${row.created_at.getTime()}.${row.id}`;
  const first = rows[0];
  const last = rows.at(-1);
  // Going forward, rows after the page exist when the read found one more; going back, they exist by construction.
  const forward = 'first' in position || 'after' in position;
  const hasNext = last !== undefined && (forward ? more : !('last' in position));
  const hasPrevious = first !== undefined && (forward ? !('first' in position) : more);
  return {
    adesoes: rows.map(enrolmentView),
    total,
    porPagina: size,
    ultimo: link('u'),
    proximo: hasNext ? link(`a.${key(last)}`) : null,
    anterior: hasPrevious ? link(`b.${key(first)}`) : null,
    atual: link(query.pagina),
  };
}

/**
 * The enrolment's current value of each field the SDK's PATCH body carries besides `status` (the interface:
 * "only status is changed"). A body may repeat them; a different value would be a change, and is refused.
 */
const UNCHANGEABLE: Record<
  'nomeFavorecido' | 'dataExpiracao' | 'valorMaximo',
  (row: EnrolmentRow) => string | undefined
> = {
  nomeFavorecido: (row) => row.body.favorecido.contaBanco.nome,
  dataExpiracao: (row) => row.body.assinatura.expiracao,
  valorMaximo: (row) => row.body.assinatura.configuracao.automatico.valorMaximo,
};

function sameValue(field: keyof typeof UNCHANGEABLE, sent: string, current: string | undefined): boolean {
  if (current === undefined) return false;
  // Amounts are compared as amounts ("50.00" is "50.00" however the client wrote it, within the schema).
  return field === 'valorMaximo' ? parseAmount(sent) === parseAmount(current) : sent === current;
}

/** Only `status: revogado` is a change; the other fields, if sent, must carry the enrolment's current values. */
export async function patchEnrolment(sql: Sql, caller: Caller, body: EnrolmentPatch) {
  const identificador = body.identificadorAdesao ?? body.identificador;
  if (!identificador) throw ofInvalid(INVALID, 'identificador', 'informe o identificador da adesão.');
  if (body.status !== 'revogado')
    throw ofInvalid(INVALID, 'status', 'apenas o status pode ser alterado, e só para revogado.');
  let row = await findEnrolment(sql, { accountId: caller.accountId, identificador }, true);
  if (!row) throw enrolmentNotFound(identificador);
  for (const field of Object.keys(UNCHANGEABLE) as (keyof typeof UNCHANGEABLE)[]) {
    const sent = body[field];
    const current = UNCHANGEABLE[field](row);
    if (sent !== undefined && !sameValue(field, sent, current))
      throw ofInvalid(
        INVALID,
        field,
        `não pode ser alterado (apenas status); o valor atual é ${current === undefined ? 'ausente' : `"${current}"`}.`,
      );
  }
  row = await expireIfDue(sql, row, caller.now);
  if (row.status !== 'autorizado' && row.status !== 'pendente')
    throw ofError(422, 'adesao_nao_revogavel', `A adesão está ${row.status}: não pode ser revogada.`);
  // A pending one is revoked too: its consent link stops working.
  const moved = await moveEnrolment(sql, row, 'revogado', body.motivo ?? 'Revogada pelo recebedor.', caller.now);
  return enrolmentView(moved);
}
