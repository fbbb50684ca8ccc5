/**
 * The sandbox's payer of automatic Pix, as a payer's institution outside pays (docs/spi.md, "The payer's side"):
 * told that an attempt is due (src/sandbox/payer.ts, in the attempt's job), it sends the attempt's pacs.008 —
 * the recurrence (`MndtId`), the charge's txid, the attempt's end-to-end id, initiated `AUTO` — into the node's
 * inbound path from a job of its own, so the inbound path never waits on what the attempt's job holds. A job run
 * twice, or an attempt's job told twice, sends a copy: the boundary answers it with the first answer.
 */
import type { DueRecurringAttempt } from '../platform/extensions.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../platform/outbox/jobs.ts';
import type { Sql } from '../platform/db/database.ts';
import type { SpiNode } from '../spi/credit.ts';
import { receiveSpiMessage } from '../spi/inbound.ts';
import { parseSpiMessage } from '../spi/messages.ts';
import { payerCreditTransfer } from './spi-institution.ts';

/** Registered by the sandbox's extension (./extension.ts) on the main worker. */
export const SANDBOX_RECURRING_PAYER_TOPIC = defineTopic<DueRecurringAttempt, SpiNode>({
  name: 'sandbox.recurring_payer',
  handler: (ctx) => recurringPayerHandler(ctx),
});

/** The payer's institution will pay the attempt: its job, due at once, written on `sql`. */
export async function sendRecurringPayment(sql: Sql, attempt: DueRecurringAttempt, now: Date): Promise<void> {
  await enqueue(sql, {
    topic: SANDBOX_RECURRING_PAYER_TOPIC,
    payload: attempt,
    accountId: attempt.accountId,
    availableAt: now,
    now,
  });
}

/** The attempt's pacs.008 delivered; a refusal (RJCT) ends the job with its reason (the attempt then expires). */
export function recurringPayerHandler(ctx: SpiNode) {
  return async (job: OutboxJob<DueRecurringAttempt>): Promise<JobOutcome> => {
    const attempt = job.payload;
    const now = ctx.clock.forAccount(attempt.accountId).now();
    const xml = payerCreditTransfer(
      {
        creditor: { chave: attempt.chave },
        txid: attempt.txid,
        idRec: attempt.idRec,
        endToEndId: attempt.endToEndId,
        initiation: 'AUTO',
        amountCents: attempt.amountCents,
        payer: attempt.payer,
      },
      now,
    );
    const answer = await receiveSpiMessage(ctx, xml);
    const report = answer.xml === undefined ? undefined : parseSpiMessage(answer.xml);
    if (report?.kind === 'pacs.002' && report.status === 'RJCT')
      return { giveUp: `${report.reason?.code ?? 'RJCT'}: ${report.reason?.info ?? ''}` };
    return { done: true };
  };
}
