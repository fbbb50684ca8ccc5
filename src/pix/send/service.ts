/**
 * Sending Pix: by key, by bank data (and paying a BR Code, ./qrcode.ts). The request checks everything it
 * can, holds the amount (`customer available -> customer sending`, the journal kind of a sent Pix, so the
 * report shows the send on the day it was asked) and enqueues the settlement in the same transaction; the
 * outcome comes later (./settlement.ts) through the payer key's webhook. docs/sending.md.
 *
 * Concurrency: every send of an account takes the account's row lock (`lockCustomer`) before it reads the
 * balance, so N concurrent sends see one balance after another and the hold can never overdraw; the
 * ledger's `balance_cents >= 0` constraint is the backstop.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Sql } from '../../platform/db/database.ts';
import type { FaultHooks } from '../../platform/faults.ts';
import { lockCustomer } from '../../platform/ledger/ledger.ts';
import { newEndToEndId, RECEIVER_ISPB } from '../../platform/institution.ts';
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount, parseAmount } from '../../platform/money.ts';
import { notFound, invalid, type Violation } from '../../platform/errors.ts';
import type { PaymentTarget } from '../payments/engine.ts';
import { SENT_PIX_KIND } from '../reports/record-types.ts';
import { paginacao } from '../shared/schemas.ts';
import type { Caller } from '../shared/caller.ts';
import { SendRefused, type ExternalInstitution } from './external.ts';
import type { SendRequest, SentListQuery } from './schemas.ts';
import {
  accountByConta,
  accountHolder,
  findSentByE2e,
  findSentByIdEnvio,
  insertSentWithHold,
  keyHolder,
  listSent,
  readSendContext,
  type SendContext,
  type SentFavorecido,
  type SentPixRow,
  type SentVia,
  holderIdentity,
} from './store.ts';
import { sendView, sentPixRead } from './view.ts';
import { SEND_SETTLE_TOPIC } from './settlement.ts';
import { canonicalJson } from '../../platform/canonical-json.ts';
import { bucketOf, returnLookupToken, takeLookupTokens } from '../lookups/service.ts';

/** What the send path needs beside the caller: who settles with other institutions. */
export interface SendDeps {
  external: ExternalInstitution;
  /** Faults on demand (sandbox only, docs/faults.md): the key lookup's. */
  faults?: FaultHooks;
}

/** Where the money goes, as resolved at request time. */
export interface Destination {
  destination: 'pixd' | 'externa';
  /** For a pixd receiver: what the payment engine pays at settlement, and the receiving account. */
  target: PaymentTarget | null;
  receiverAccountId: number | null;
  favorecido: SentFavorecido;
}

const KEY_PATTERNS: [string, RegExp][] = [
  ['cpf', /^\d{11}$/],
  ['cnpj', /^\d{14}$/],
  ['phone', /^\+[1-9]\d{1,14}$/],
  ['email', /^[^@\s]+@[^@\s]+\.[^@\s]+$/],
  ['evp', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/],
];

/** Whether a text has the shape of a Pix key (CPF, CNPJ, +phone, e-mail or random key). */
export function isPixKey(chave: string): boolean {
  return KEY_PATTERNS.some(([, re]) => re.test(chave));
}

function checkDocument(
  expected: { cpf?: string; cnpj?: string },
  holder: { cpf?: string; cnpj?: string },
  property: string,
) {
  if ((expected.cpf && expected.cpf !== holder.cpf) || (expected.cnpj && expected.cnpj !== holder.cnpj))
    throw new SendRefused('documento_divergente', 'O documento informado não é o titular do destino.', property);
}

/** The receiver named by a key: an account of this pixd, or the other institution. */
async function keyDestination(
  sql: Sql,
  caller: Caller,
  deps: SendDeps,
  amountCents: number,
  favorecido: { chave: string; cpf?: string; cnpj?: string },
): Promise<Destination> {
  if (!isPixKey(favorecido.chave))
    throw new SendRefused('chave_invalida', `${favorecido.chave} não é uma chave Pix válida.`, 'favorecido.chave');
  const holder = await keyHolder(sql, favorecido.chave);
  if (holder?.accountId === caller.accountId)
    throw new SendRefused(
      'chave_propria',
      'A chave do favorecido pertence à própria conta pagadora.',
      'favorecido.chave',
    );
  if (holder !== undefined) {
    const identificacao = holder.identity;
    checkDocument(favorecido, identificacao, 'favorecido.cpf');
    return {
      destination: 'pixd',
      target: { kind: 'key', chave: favorecido.chave },
      receiverAccountId: holder.accountId,
      favorecido: { chave: favorecido.chave, identificacao },
    };
  }
  const identificacao = deps.external.accept({ amountCents, favorecido: { chave: favorecido.chave } });
  checkDocument(favorecido, identificacao, 'favorecido.cpf');
  return {
    destination: 'externa',
    target: null,
    receiverAccountId: null,
    favorecido: { chave: favorecido.chave, identificacao },
  };
}

/** The receiver named by bank data: an account of this pixd when the bank is us, else the other institution. */
async function bankDestination(
  sql: Sql,
  caller: Caller,
  deps: SendDeps,
  amountCents: number,
  contaBanco: NonNullable<SendRequest['favorecido']['contaBanco']>,
): Promise<Destination> {
  if (!contaBanco.cpf === !contaBanco.cnpj)
    throw new SendRefused(
      'conta_invalida',
      'Informe cpf ou cnpj do titular da conta (um deles).',
      'favorecido.contaBanco.cpf',
    );
  if (contaBanco.codigoBanco === RECEIVER_ISPB) {
    const account = await accountByConta(sql, contaBanco.conta);
    if (!account)
      throw new SendRefused(
        'conta_inexistente',
        `A conta ${contaBanco.conta} não existe nesta instituição.`,
        'favorecido.contaBanco.conta',
      );
    if (account.id === caller.accountId)
      throw new SendRefused(
        'conta_propria',
        'A conta do favorecido é a própria conta pagadora.',
        'favorecido.contaBanco.conta',
      );
    const identificacao = await holderIdentity(sql, account.id);
    checkDocument(contaBanco, identificacao, 'favorecido.contaBanco.cpf');
    return {
      destination: 'pixd',
      target: { kind: 'account', conta: contaBanco.conta },
      receiverAccountId: account.id,
      favorecido: { contaBanco, identificacao },
    };
  }
  const identificacao = deps.external.accept({ amountCents, favorecido: { contaBanco } });
  return { destination: 'externa', target: null, receiverAccountId: null, favorecido: { contaBanco, identificacao } };
}

/** Checks the payer's key: a key of the caller's account, with a Pix webhook (where the outcome goes). */
function checkPayerKey(context: SendContext, caller: Caller, chave: string): void {
  if (context.payerKeyOwner !== caller.accountId)
    throw new SendRefused(
      'chave_pagador_invalida',
      `A chave ${chave} não é uma chave ativa desta conta.`,
      'pagador.chave',
    );
  if (!context.payerKeyHasWebhook)
    throw new SendRefused(
      'webhook_nao_cadastrado',
      `A chave ${chave} do pagador não tem webhook Pix cadastrado: é por ele que o resultado do envio é informado.`,
      'pagador.chave',
    );
}

export function parseSendAmount(valor: string): number {
  const cents = parseAmount(valor);
  if (cents <= 0) throw new SendRefused('valor_invalido', 'O valor do Pix deve ser positivo.', 'valor');
  return cents;
}

export interface SendStart {
  idEnvio: string;
  request: Record<string, unknown>;
  via: SentVia;
  payerKey: string;
  infoPagador?: string;
  /** Resolves the amount and the receiver, under the account's lock (may refuse). */
  resolve: (sql: Sql) => Promise<{ amountCents: number; destination: Destination }>;
}

/**
 * The common path of every send: idempotency by idEnvio, the payer key's checks, the receiver, the balance,
 * the hold and the settlement job, in the caller's transaction.
 */
export async function startSend(sql: Sql, caller: Caller, start: SendStart) {
  await lockCustomer(sql, caller.accountId);
  // Everything the checks read, after the lock (a read in the locking statement could see an older balance).
  const context = await readSendContext(sql, caller.accountId, start.idEnvio, start.payerKey);
  if (context.existingId !== null) {
    const existing = (await findSentByIdEnvio(sql, caller.accountId, start.idEnvio))!;
    // Idempotent per account: the same body answers the same send (its current state); another is a conflict.
    if (canonicalJson(existing.request) === canonicalJson(start.request))
      return { created: false, view: sendView(existing) };
    throw new SendRefused(
      'id_envio_duplicado',
      `O idEnvio ${start.idEnvio} já foi usado com outra requisição.`,
      'idEnvio',
      409,
    );
  }
  checkPayerKey(context, caller, start.payerKey);
  const { amountCents, destination } = await start.resolve(sql);
  const available = context.availableCents;
  if (available < amountCents)
    throw new SendRefused(
      'saldo_insuficiente',
      `Saldo disponível (${formatAmount(available)}) insuficiente para o envio de ${formatAmount(amountCents)}.`,
      'valor',
    );
  // The row, the hold (`available -> sending`) and the settlement job in one statement.
  const sent = await insertSentWithHold(
    sql,
    {
      account_id: caller.accountId,
      id_envio: start.idEnvio,
      end_to_end_id: newEndToEndId(caller.now, RECEIVER_ISPB),
      request: start.request,
      via: start.via,
      payer_key: start.payerKey,
      info_pagador: start.infoPagador ?? null,
      amount_cents: amountCents,
      favorecido: destination.favorecido,
      destination: destination.destination,
      target: destination.target,
      receiver_account_id: destination.receiverAccountId,
      requested_at: caller.now,
    },
    {
      kind: start.via === 'dados_bancarios' ? SENT_PIX_KIND.dados_bancarios : SENT_PIX_KIND.chave,
      ledgerIds: [context.availableLedgerId, context.sendingLedgerId],
    },
    SEND_SETTLE_TOPIC,
  );
  return { created: true, view: sendView(sent) };
}

/**
 * The directory lookup of the receiver's key, before the transaction (so a lookup that times out holds no lock
 * while it waits, and its tokens stay taken whatever the send's outcome): it takes tokens from the account's
 * bucket (../lookups/service.ts) or is refused when the bucket is empty. The sandbox may have been asked to get
 * the answer wrong (docs/faults.md): not found, or no answer in time. A used idEnvio is a replay, which looks
 * nothing up.
 */
export async function lookUpKey(
  sql: Sql,
  caller: Caller,
  deps: SendDeps,
  idEnvio: string,
  body: SendRequest,
): Promise<void> {
  const { chave } = body.favorecido;
  if (chave === undefined || !isPixKey(chave)) return;
  if (await findSentByIdEnvio(sql, caller.accountId, idEnvio)) return;
  const fault = deps.faults?.active(caller.accountId, 'chave')
    ? await deps.faults.take(sql, caller.accountId, 'chave')
    : undefined;
  const found = fault?.resultado !== 'nao_encontrada';
  if (!(await takeLookupTokens(sql, caller.accountId, chave, found, caller.now)))
    throw new SendRefused(
      'limite_consultas_chave_atingido',
      `As consultas de chaves ao DICT desta conta se esgotaram (balde ${bucketOf(chave)}, GET /v2/gn/chaves/balde); novas fichas chegam a cada ${LIMITS.keyLookupRefillPeriodSeconds} s.`,
      'favorecido.chave',
      429,
    );
  if (!fault) return;
  if (!found)
    throw new SendRefused(
      'chave_nao_encontrada',
      `A chave ${chave} não foi encontrada no DICT.`,
      'favorecido.chave',
      404,
    );
  await delay(fault.esperaMs);
  throw new SendRefused(
    'consulta_chave_tempo_esgotado',
    `A consulta da chave ${chave} ao DICT não respondeu a tempo.`,
    'favorecido.chave',
    504,
  );
}

/**
 * A same-owner send (`PUT /v2/gn/pix/:idEnvio/mesma-titularidade`) reaches only an account whose holder has the
 * payer's document (CPF or CNPJ), as the receiver's institution names it.
 */
async function checkSameOwner(sql: Sql, caller: Caller, destination: Destination): Promise<void> {
  const payer = await holderIdentity(sql, caller.accountId);
  const receiver = destination.favorecido.identificacao;
  const document = (who?: { cpf?: string; cnpj?: string }) => who?.cpf ?? who?.cnpj;
  if (document(receiver) !== document(payer))
    throw new SendRefused(
      'titularidade_divergente',
      'O favorecido não tem o mesmo CPF/CNPJ da conta pagadora: este envio é só entre contas do mesmo titular.',
      'favorecido',
    );
}

/** `PUT /v2/gn/pix/:idEnvio` (and /v3): send by key or by bank data; `sameOwner`, only to the payer's own document. */
export async function sendPix(
  sql: Sql,
  caller: Caller,
  deps: SendDeps,
  idEnvio: string,
  body: SendRequest,
  { sameOwner = false } = {},
) {
  const { favorecido } = body;
  const byKey = favorecido.chave !== undefined;
  if (byKey === (favorecido.contaBanco !== undefined))
    throw new SendRefused(
      'favorecido_invalido',
      'Informe favorecido.chave ou favorecido.contaBanco (um deles).',
      'favorecido',
    );
  if (!byKey && (favorecido.cpf || favorecido.cnpj))
    throw new SendRefused('favorecido_invalido', 'cpf e cnpj do favorecido vão dentro de contaBanco.', 'favorecido');
  if (favorecido.cpf && favorecido.cnpj)
    throw new SendRefused('favorecido_invalido', 'Informe cpf ou cnpj do favorecido, não ambos.', 'favorecido.cpf');
  const amountCents = parseSendAmount(body.valor);
  const started = await startSend(sql, caller, {
    idEnvio,
    // The same idEnvio on the other route is another request (idempotency compares the request).
    request: sameOwner ? { ...body, mesmaTitularidade: true } : body,
    via: byKey ? 'chave' : 'dados_bancarios',
    payerKey: body.pagador.chave,
    infoPagador: body.pagador.infoPagador,
    resolve: async (tx) => {
      const destination = byKey
        ? await keyDestination(tx, caller, deps, amountCents, {
            chave: favorecido.chave!,
            cpf: favorecido.cpf,
            cnpj: favorecido.cnpj,
          })
        : await bankDestination(tx, caller, deps, amountCents, favorecido.contaBanco!);
      if (sameOwner) await checkSameOwner(tx, caller, destination);
      return { amountCents, destination };
    },
  });
  // The payment order sent gives the lookup's bucket a token back (the DICT's counting rule).
  if (started.created && byKey) await returnLookupToken(sql, caller.accountId, favorecido.chave!, caller.now);
  return started;
}

export const SENT_INVALID_QUERY = 'PixConsultaInvalida';

export async function readSentByE2e(sql: Sql, caller: Caller, e2eId: string) {
  const sent = await findSentByE2e(sql, caller.accountId, e2eId);
  if (!sent) throw notFound(`Pix enviado ${e2eId} não encontrado.`);
  return sentPixRead(sent);
}

export async function readSentByIdEnvio(sql: Sql, caller: Caller, idEnvio: string) {
  const sent = await findSentByIdEnvio(sql, caller.accountId, idEnvio);
  if (!sent) throw notFound(`Pix enviado com idEnvio ${idEnvio} não encontrado.`);
  return sentPixRead(sent);
}

export async function listSentPix(sql: Sql, caller: Caller, q: SentListQuery) {
  const inicio = new Date(q.inicio);
  const fim = new Date(q.fim);
  const violations: Violation[] = [];
  if (fim < inicio) violations.push({ property: 'fim', reason: 'fim é anterior a inicio.', value: q.fim });
  if (violations.length) throw invalid(SENT_INVALID_QUERY, 'Os parâmetros de consulta não fazem sentido.', violations);
  const page = q['paginacao.paginaAtual'] ?? 0;
  const pageSize = q['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault;
  const { rows, total } = await listSent(
    sql,
    { accountId: caller.accountId, inicio, fim, status: q.status },
    page,
    pageSize,
  );
  return {
    parametros: { inicio: q.inicio, fim: q.fim, paginacao: paginacao(page, pageSize, total) },
    pix: rows.map((r: SentPixRow) => sentPixRead(r)),
  };
}
