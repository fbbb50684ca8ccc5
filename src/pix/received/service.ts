/** Received Pix: reads, lists and refund requests. Refunds settle asynchronously (see jobs.ts). */
import type { RefundGuard } from './refund-guard.ts';
import type { Sql } from '../../platform/db/database.ts';
import { invalid, notFound, type Violation } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount, parseAmount } from '../../platform/money.ts';
import { newReturnId } from '../../platform/institution.ts';
import { enqueue } from '../../platform/outbox/jobs.ts';
import type { Caller } from '../shared/caller.ts';
import { findReceivedPix, findRefund, insertRefund, refundedOrPendingCents, refundsOf } from './store.ts';
import { pixView, refundView } from './view.ts';
import { receivedPixPageJson } from './page-store.ts';
import { REFUND_SETTLE_TOPIC } from './jobs.ts';
import type { PixListQuery, RefundRequest } from './schemas.ts';

export const REFUND_INVALID = 'PixDevolucaoInvalida';

const pixNotFound = (e2eid: string) => notFound(`Pix ${e2eid} não encontrado.`);

export async function readPix(sql: Sql, caller: Caller, e2eid: string) {
  const pix = await findReceivedPix(sql, caller.accountId, e2eid);
  if (!pix) throw pixNotFound(e2eid);
  return pixView(pix, await refundsOf(sql, [pix.id]));
}

/** GET /v2/pix: the page's response body, as JSON text written by the database (page-store.ts). */
export async function listPix(sql: Sql, caller: Caller, q: PixListQuery): Promise<string> {
  const inicio = new Date(q.inicio);
  const fim = new Date(q.fim);
  const violations: Violation[] = [];
  if (fim < inicio) violations.push({ property: 'fim', reason: 'fim é anterior a inicio.', value: q.fim });
  if (q.cpf && q.cnpj) violations.push({ property: 'cpf', reason: 'cpf e cnpj não podem ser informados juntos.' });
  if (violations.length)
    throw invalid(
      'PixConsultaInvalida',
      'Os parâmetros de consulta não respeitam o schema ou não fazem sentido.',
      violations,
    );
  return receivedPixPageJson(
    sql,
    {
      accountId: caller.accountId,
      inicio,
      fim,
      txid: q.txid,
      txIdPresente: q.txIdPresente,
      devolucaoPresente: q.devolucaoPresente,
      cpf: q.cpf,
      cnpj: q.cnpj,
    },
    { inicio: q.inicio, fim: q.fim },
    q['paginacao.paginaAtual'] ?? 0,
    q['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault,
  );
}

export type { RefundGuard };

export async function requestRefund(
  sql: Sql,
  caller: Caller,
  e2eid: string,
  refundId: string,
  body: RefundRequest,
  guards: RefundGuard[] = [],
) {
  // Locking the received Pix serialises refunds of one payment: their sum is checked against one state.
  const pix = await findReceivedPix(sql, caller.accountId, e2eid, true);
  if (!pix) throw pixNotFound(e2eid);
  const amountCents = parseAmount(body.valor);
  const existing = await findRefund(sql, pix.id, refundId);
  if (existing) {
    // Idempotent per id: the same request answers the same refund; a different one is a conflict.
    if (existing.amount_cents === amountCents)
      return { created: false, refundRowId: existing.id, view: refundView(existing) };
    throw invalid(
      REFUND_INVALID,
      `A devolução ${refundId} já existe com outro valor (${formatAmount(existing.amount_cents)}).`,
      [{ property: 'id', reason: 'id já utilizado.', value: refundId }],
    );
  }
  if (amountCents === 0)
    throw invalid(REFUND_INVALID, 'O valor da devolução deve ser positivo.', [
      { property: 'valor', reason: 'valor zero.', value: body.valor },
    ]);
  for (const guard of guards) {
    const refusal = await guard(sql, pix.id);
    if (refusal) throw invalid(REFUND_INVALID, refusal, [{ property: 'e2eid', reason: refusal, value: e2eid }]);
  }
  const availableCents = pix.amount_cents - (await refundedOrPendingCents(sql, pix.id));
  if (amountCents > availableCents) {
    throw invalid(
      REFUND_INVALID,
      `O valor ${body.valor} excede o disponível para devolução (${formatAmount(availableCents)}).`,
      [{ property: 'valor', reason: 'valor acima do disponível para devolução.', value: body.valor }],
    );
  }
  const refund = await insertRefund(sql, {
    received_pix_id: pix.id,
    account_id: caller.accountId,
    refund_id: refundId,
    rtr_id: newReturnId(caller.now),
    amount_cents: amountCents,
    status: 'EM_PROCESSAMENTO',
    natureza: body.natureza ?? 'ORIGINAL',
    descricao: body.descricao ?? null,
    requested_at: caller.now,
  });
  await enqueue(sql, {
    topic: REFUND_SETTLE_TOPIC,
    payload: { refundId: refund.id },
    accountId: caller.accountId,
    availableAt: caller.now,
    now: caller.now,
  });
  return { created: true, refundRowId: refund.id, view: refundView(refund) };
}

export async function readRefund(sql: Sql, caller: Caller, e2eid: string, refundId: string) {
  const pix = await findReceivedPix(sql, caller.accountId, e2eid);
  const refund = pix && (await findRefund(sql, pix.id, refundId));
  if (!refund) throw notFound(`Devolução ${refundId} do Pix ${e2eid} não encontrada.`);
  return refundView(refund);
}
