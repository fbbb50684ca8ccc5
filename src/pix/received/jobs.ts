/**
 * Refund settlement, run by the outbox after the request commits. The balance is read under the
 * customer's lock, so concurrent refunds cannot spend the same funds. Re-running a settled refund is a
 * no-op (at-least-once delivery of the job).
 */
import type { Database } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { balanceCents, ledgerCode, transfer } from '../../platform/ledger/ledger.ts';
import { defineTopic, type JobDeps, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import type { FaultHooks } from '../../platform/faults.ts';
import { findReceivedPixById, findRefundById, refundsOf, settleRefund } from './store.ts';
import { queuePaymentReturn } from '../../spi/outbound.ts';
import { outboundExists } from '../../spi/store.ts';
import { enqueuePixEvent } from './events.ts';
import { creditPixdPayer, lockRefundParties } from '../send/returns.ts';
import { beneficiaryParts, shortfallOf, takeBackParts } from '../split/refund-settlement.ts';

export const INSUFFICIENT_BALANCE = 'Saldo insuficiente para a devolução.';

/** Enqueued with the refund request (service.ts); settles it on the ledger. */
export const REFUND_SETTLE_TOPIC = defineTopic<{ refundId: number }, JobDeps & { faults?: FaultHooks }>({
  name: 'refund.settle',
  handler: ({ db, clock, faults }) => refundSettlementHandler(db, clock, faults),
});

/** `faults`: the sandbox's faults on demand, whose refund fault ends a refund NAO_REALIZADO (docs/faults.md). */
export function refundSettlementHandler(db: Database, clock: Clock, faults?: FaultHooks) {
  return async (job: OutboxJob<{ refundId: number }>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const refund = await findRefundById(sql, job.payload.refundId, true);
      if (!refund || refund.status !== 'EM_PROCESSAMENTO') return;
      const now = clock.forAccount(refund.account_id).now();
      // A split Pix's refund takes the beneficiaries' parts back first (split/refund-settlement.ts).
      const parts = await beneficiaryParts(sql, refund.id);
      await lockRefundParties(
        sql,
        refund.account_id,
        refund.received_pix_id,
        parts.map((part) => part.account_id),
      );
      const pix = (await findReceivedPixById(sql, refund.received_pix_id))!;
      // Queued already (a second delivery of this job): its pacs.002 settles it (src/spi/answers.ts).
      if (pix.origin === 'spi' && (await outboundExists(sql, refund.rtr_id))) return;
      const available = await balanceCents(sql, ledgerCode.available(refund.account_id));
      const refused = await faults?.take(sql, refund.account_id, 'devolucao');
      const shortfall = await shortfallOf(sql, parts);
      const partsCents = parts.reduce((sum, part) => sum + part.amount_cents, 0);
      if (refused) {
        await settleRefund(sql, refund.id, 'NAO_REALIZADO', now, refused.motivo);
      } else if (shortfall) {
        await settleRefund(sql, refund.id, 'NAO_REALIZADO', now, shortfall);
      } else if (available + partsCents < refund.amount_cents) {
        await settleRefund(sql, refund.id, 'NAO_REALIZADO', now, INSUFFICIENT_BALANCE);
      } else {
        await takeBackParts(sql, refund, parts, now);
        await transfer(sql, {
          kind: 'pix_devolvido',
          reference: refund.rtr_id,
          accountId: refund.account_id,
          at: now,
          from: ledgerCode.available(refund.account_id),
          to: ledgerCode.externalPix,
          amountCents: refund.amount_cents,
        });
        if (pix.origin === 'spi') {
          // A Pix from another institution goes back through the SPI: its amount left now, with the pacs.004 that
          // carries it; the refund stays in processing until that message's answer.
          await queuePaymentReturn(
            sql,
            {
              refundId: refund.id,
              accountId: refund.account_id,
              rtrId: refund.rtr_id,
              originalEndToEndId: pix.end_to_end_id,
              amountCents: refund.amount_cents,
              reason: 'MD06',
            },
            now,
          );
          return;
        }
        // A Pix from another account of this pixd: the refund reaches that account (src/pix/send/returns.ts).
        await creditPixdPayer(
          sql,
          { receivedPixId: refund.received_pix_id, amountCents: refund.amount_cents, rtrId: refund.rtr_id },
          now,
        );
        await settleRefund(sql, refund.id, 'DEVOLVIDO', now, null);
      }
      // One event per settled refund, carrying the Pix with its whole refunds array.
      await enqueuePixEvent(sql, pix, await refundsOf(sql, [pix.id]), now);
    });
    return { done: true };
  };
}
