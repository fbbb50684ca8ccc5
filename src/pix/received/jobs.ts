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
import { findRefundById, refundsOf, settleRefund, type ReceivedPixRow } from './store.ts';
import { enqueuePixEvent } from './events.ts';
import { creditPixdPayer, lockRefundParties } from '../send/returns.ts';

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
      await lockRefundParties(sql, refund.account_id, refund.received_pix_id);
      const available = await balanceCents(sql, ledgerCode.available(refund.account_id));
      const refused = await faults?.take(sql, refund.account_id, 'devolucao');
      if (refused) {
        await settleRefund(sql, refund.id, 'NAO_REALIZADO', now, refused.motivo);
      } else if (available >= refund.amount_cents) {
        await transfer(sql, {
          kind: 'pix_devolvido',
          reference: refund.rtr_id,
          accountId: refund.account_id,
          at: now,
          from: ledgerCode.available(refund.account_id),
          to: ledgerCode.externalPix,
          amountCents: refund.amount_cents,
        });
        // A Pix from another account of this pixd: the refund reaches that account (src/pix/send/returns.ts).
        await creditPixdPayer(
          sql,
          { receivedPixId: refund.received_pix_id, amountCents: refund.amount_cents, rtrId: refund.rtr_id },
          now,
        );
        await settleRefund(sql, refund.id, 'DEVOLVIDO', now, null);
      } else {
        await settleRefund(sql, refund.id, 'NAO_REALIZADO', now, INSUFFICIENT_BALANCE);
      }
      const { rows } = await sql.query<ReceivedPixRow>('select * from received_pix where id = $1', [
        refund.received_pix_id,
      ]);
      // One event per settled refund, carrying the Pix with its whole refunds array.
      await enqueuePixEvent(sql, rows[0], await refundsOf(sql, [rows[0].id]), now);
    });
    return { done: true };
  };
}
