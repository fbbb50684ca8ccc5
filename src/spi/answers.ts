/**
 * The answers to what left through the SPI boundary (outbound.ts): a pacs.002 from the gateway, or the deadline
 * passing without one. The outbound message's row is locked first and records one answer, so a repeated or
 * late pacs.002 changes nothing; then, in the same transaction:
 *
 *   pacs.008 (a send)    ACSP/ACCC: REALIZADO, the held amount leaves to the settlement account
 *                        RJCT (or no answer: AB03): NAO_REALIZADO, the hold goes back to the payer
 *   pacs.004 (a refund,  ACSP/ACCC: DEVOLVIDO (its amount left when it was queued)
 *   or a MED return)     RJCT (or no answer): NAO_REALIZADO, the amount comes back from the settlement account
 *                        (to the receiver's available balance, a MED return's too: docs/decisions.md)
 */
import type { Clock } from '../platform/clock.ts';
import type { Database, Sql } from '../platform/db/database.ts';
import { ledgerCode, lockCustomer, transfer } from '../platform/ledger/ledger.ts';
import { defineTopic, type JobOutcome, type OutboxJob } from '../platform/outbox/jobs.ts';
import { enqueuePixEvent } from '../pix/received/events.ts';
import { findReceivedPixById, findRefundById, refundsOf, settleRefund } from '../pix/received/store.ts';
import { concludeSend } from '../pix/send/settlement.ts';
import type { TransactionStatus } from './messages.ts';
import { lockOutboundById, lockOutboundByRef, setOutboundAnswer } from './store.ts';

export interface OutboundAnswer {
  status: TransactionStatus;
  reason?: { code: string; info?: string };
}

/** What the SPI answers a participant that did not answer in time (the catalog's AB03). */
export const NO_ANSWER: OutboundAnswer = {
  status: 'RJCT',
  reason: { code: 'AB03', info: 'Sem resposta da instituição do recebedor no prazo.' },
};

/** Journal kind of a refused pacs.004: its amount back to the receiver's balance. */
export const RETURN_REFUSED_KIND = 'devolucao_spi_recusada';

/** The deadline of an outbound message's answer, enqueued with it (outbound.ts). */
export const SPI_TIMEOUT_TOPIC = defineTopic<{ outboundId: number }>({
  name: 'spi.outbound.timeout',
  handler:
    ({ db, clock }) =>
    async (job: OutboxJob<{ outboundId: number }>): Promise<JobOutcome> => {
      await answerOutbound(db, clock, { id: job.payload.outboundId }, NO_ANSWER);
      return { done: true };
    },
});

/** A send's motivo when its receiver's institution refused it (or did not answer). */
export const motivoOf = (answer: OutboundAnswer) =>
  `Pix recusado pela instituição do recebedor (${answer.reason?.code ?? 'RJCT'}${answer.reason?.info ? `: ${answer.reason.info}` : ''}).`;

/** Applies an answer; 'unknown' when no outbound message has that id, 'already' when one was applied before. */
export function answerOutbound(
  db: Database,
  clock: Clock,
  which: { id: number } | { refId: string },
  answer: OutboundAnswer,
): Promise<'applied' | 'already' | 'unknown'> {
  return db.tx(async (sql) => {
    const row = 'id' in which ? await lockOutboundById(sql, which.id) : await lockOutboundByRef(sql, which.refId);
    if (!row) return 'unknown';
    if (row.answer_status) return 'already';
    const at = clock.forAccount(row.account_id).now();
    await setOutboundAnswer(sql, row.id, answer.status, at);
    const refused = answer.status === 'RJCT' ? motivoOf(answer) : undefined;
    if (row.sent_pix_id !== null)
      await concludeSend(sql, clock, row.sent_pix_id, refused === undefined ? { credited: true } : { refused });
    if (row.refund_id !== null) await concludeReturn(sql, row.refund_id, refused, at);
    return 'applied';
  });
}

async function concludeReturn(sql: Sql, refundId: number, refused: string | undefined, at: Date): Promise<void> {
  const refund = await findRefundById(sql, refundId, true);
  if (refund?.status !== 'EM_PROCESSAMENTO') return;
  if (refused === undefined) {
    await settleRefund(sql, refund.id, 'DEVOLVIDO', at, null);
  } else {
    await lockCustomer(sql, refund.account_id);
    await transfer(sql, {
      kind: RETURN_REFUSED_KIND,
      reference: refund.rtr_id,
      accountId: refund.account_id,
      at,
      from: ledgerCode.externalPix,
      to: ledgerCode.available(refund.account_id),
      amountCents: refund.amount_cents,
    });
    await settleRefund(sql, refund.id, 'NAO_REALIZADO', at, refused.slice(0, 140));
  }
  const pix = (await findReceivedPixById(sql, refund.received_pix_id))!;
  await enqueuePixEvent(sql, pix, await refundsOf(sql, [pix.id]), at);
}
