/**
 * Special refund requests (`POST /dict/refunds`, `GET /dict/refunds/:id`) on a Pix the participant's customer
 * paid or received through pixd, and their closing (the sandbox plays the contested participant:
 * `POST /sandbox/dict/refunds/:id/close`). Money moves only when a request is closed accepted, and through the
 * paths every refund takes:
 *
 *   received by the customer  a devolução of that Pix (pix/received, `refund.settle`): out of the participant's
 *                             account, back to its payer (a pixd payer is credited by the same job)
 *   paid by the customer, to a pixd account  a devolução of the receiver's Pix, which reaches the participant's
 *                             account as any returned transfer does (send/returns.ts)
 *   paid by the customer, elsewhere  the other institution returns it: `external:pix -> participant available`
 */
import { randomUUID } from 'node:crypto';
import type { Database, Sql } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { formatAmount } from '../../platform/money.ts';
import { newReturnId } from '../../platform/institution.ts';
import { ledgerCode, transfer } from '../../platform/ledger/ledger.ts';
import { requestRefund } from '../received/service.ts';
import { refundedOrPendingCents } from '../received/store.ts';
import { splitRefundGuard } from '../split/distribute.ts';
import type { RefundClose, RefundCreate, RefundView } from './schemas.ts';
import {
  claimedByRefundRequests,
  closeDictRefund,
  findDictRefund,
  insertDictRefund,
  lockDictScope,
  receivedByAccount,
  sentByAccount,
  type RefundRow,
} from './store.ts';

export const REFUND_INVALID = 'RefundInvalid';

/** A number of reais with at most two decimals, in cents; undefined when it has more. */
function centsOf(reais: number): number | undefined {
  const cents = Math.round(reais * 100);
  return Math.abs(cents - reais * 100) < 1e-6 && cents > 0 ? cents : undefined;
}

export function refundView(row: RefundRow): RefundView {
  return {
    id: row.id,
    status: row.status,
    contestedParticipant: row.contested_participant,
    requestingParticipant: row.requesting_participant,
    creationTime: row.created_at.toISOString(),
    lastModified: row.last_modified.toISOString(),
    refundAmount: Number(row.refund_amount_cents) / 100,
    refundDetails: row.refund_details,
    refundReason: row.refund_reason,
    transactionId: row.transaction_id,
    ...(row.result && { refundAnalysisResult: row.result }),
    ...(row.refunded_amount_cents !== null && { refundedAmount: Number(row.refunded_amount_cents) / 100 }),
  };
}

/** The transaction, which side of it the customer was on, the other side's ISPB and what is left to refund. */
async function transactionOf(sql: Sql, accountId: number, e2e: string) {
  const received = await receivedByAccount(sql, accountId, e2e);
  if (received) {
    const refundable =
      Number(received.amount_cents) -
      (await refundedOrPendingCents(sql, received.id)) -
      (await claimedByRefundRequests(sql, e2e));
    // The payer's institution is the ISPB inside the end-to-end id it created.
    return { direction: 'received' as const, contested: e2e.slice(1, 9), refundable };
  }
  const sent = await sentByAccount(sql, accountId, e2e);
  if (sent?.status === 'REALIZADO') {
    const refundable = Number(sent.amount_cents) - (await claimedByRefundRequests(sql, e2e));
    // A pixd receiver is pixd itself as institution, or its own ISPB when it is a participant.
    const contested = sent.destination === 'pixd' ? (sent.receiver_ispb ?? e2e.slice(1, 9)) : '00000000';
    return { direction: 'paid' as const, contested, refundable };
  }
  return undefined;
}

export async function createRefundRequest(
  db: Database,
  participant: { accountId: number; ispb: string },
  body: RefundCreate,
  now: Date,
): Promise<RefundView> {
  const { refund } = body;
  const cents = centsOf(refund.refundAmount);
  if (cents === undefined)
    throw invalid(REFUND_INVALID, 'refundAmount: reais com no máximo duas casas decimais.', [
      { property: 'refund.refundAmount', reason: 'no máximo duas casas decimais.', value: refund.refundAmount },
    ]);
  return db.tx(async (sql) => {
    await lockDictScope(sql, `refund/${refund.transactionId}`);
    const transaction = await transactionOf(sql, participant.accountId, refund.transactionId);
    if (!transaction)
      throw notFound(
        `Nenhum Pix ${refund.transactionId} pago ou recebido por esta conta (enviados: só os realizados).`,
        'NotFound',
      );
    if (cents > transaction.refundable)
      throw invalid(
        REFUND_INVALID,
        `O valor ${formatAmount(cents)} excede o reembolsável (${formatAmount(Math.max(transaction.refundable, 0))}).`,
        [{ property: 'refund.refundAmount', reason: 'acima do reembolsável.', value: refund.refundAmount }],
      );
    const row: RefundRow = {
      id: randomUUID(),
      account_id: participant.accountId,
      transaction_id: refund.transactionId,
      direction: transaction.direction,
      refund_amount_cents: cents,
      refund_details: refund.refundDetails,
      refund_reason: refund.refundReason.toLowerCase(),
      requesting_participant: participant.ispb,
      contested_participant: transaction.contested,
      status: 'open',
      result: null,
      refunded_amount_cents: null,
      created_at: now,
      last_modified: now,
    };
    await insertDictRefund(sql, row);
    return refundView(row);
  });
}

export async function readRefundRequest(sql: Sql, accountId: number, id: string): Promise<RefundView> {
  const row = await findDictRefund(sql, accountId, id);
  if (!row) throw notFound(`Solicitação de devolução ${id} não encontrada.`, 'NotFound');
  return refundView(row);
}

/** What the contested side returns when it accepts: the devolução of a Pix received in pixd, or the other institution's. */
async function returnMoney(sql: Sql, row: RefundRow, cents: number, now: Date): Promise<void> {
  const devolucao = { valor: formatAmount(cents), descricao: `Devolução especial (${row.refund_reason}).` };
  const refundId = `MED${row.id.replaceAll('-', '')}`;
  const caller = (accountId: number) => ({ accountId, now, publicUrl: '', chargeCreated: [] });
  if (row.direction === 'received') {
    await requestRefund(sql, caller(Number(row.account_id)), row.transaction_id, refundId, devolucao, [
      splitRefundGuard,
    ]);
    return;
  }
  const sent = await sentByAccount(sql, Number(row.account_id), row.transaction_id);
  if (sent?.received_pix_id && sent.receiver_account_id !== null) {
    await requestRefund(sql, caller(Number(sent.receiver_account_id)), row.transaction_id, refundId, devolucao, [
      splitRefundGuard,
    ]);
    return;
  }
  await transfer(sql, {
    kind: 'pix_devolucao_recebida',
    reference: newReturnId(now),
    accountId: Number(row.account_id),
    at: now,
    from: ledgerCode.externalPix,
    to: ledgerCode.available(Number(row.account_id)),
    amountCents: cents,
  });
}

/** Sandbox: the contested participant's analysis closes the request; an acceptance returns the money. */
export async function closeRefundRequest(
  db: Database,
  clock: Clock,
  accountId: number,
  id: string,
  body: RefundClose,
): Promise<RefundView> {
  const now = clock.forAccount(accountId).now();
  return db.tx(async (sql) => {
    const row = await findDictRefund(sql, accountId, id, 'for update');
    if (!row) throw notFound(`Solicitação de devolução ${id} não encontrada.`);
    if (row.status !== 'open') throw invalid(REFUND_INVALID, `A solicitação ${id} já foi encerrada.`);
    let cents = 0;
    if (body.result === 'totally_accepted') cents = Number(row.refund_amount_cents);
    if (body.result === 'partially_accepted') {
      const partial = body.amount === undefined ? undefined : centsOf(body.amount);
      if (partial === undefined || partial >= Number(row.refund_amount_cents))
        throw invalid(REFUND_INVALID, 'partially_accepted exige amount positivo, abaixo do valor pedido.', [
          { property: 'amount', reason: 'obrigatório, positivo, menor que refundAmount.' },
        ]);
      cents = partial;
    }
    if (cents > 0) await returnMoney(sql, row, cents, now);
    return refundView(await closeDictRefund(sql, row.id, body.result, cents, now));
  });
}
