/**
 * The settlement path of an inbound pacs.008 paying a recurring charge's attempt (automatic Pix: an idRec in
 * `MndtRltdInf`, docs/spi.md), batched like the keys' (credit.ts): the charge read without a lock, its attempt
 * matched (the recurrence, the txid, the attempt's end-to-end id, the amount, the recurrence approved, the key's
 * settings), and one statement shared by the messages in flight (group commit) that settles only the charge's
 * version read, claims the message with its ACSP answer, and writes what a paid attempt writes
 * (src/spi/recurring-store.ts over src/pix/cobr/settlement-store.ts). A day's attempts falling due together, paid
 * by their payers' messages, share statements instead of a transaction each under the charge's lock.
 *
 * Undefined means "decide it on the locked path" (inbound.ts, `settleRecurringPayment`), with the same rules:
 * not such a message, no attempt it pays, a rule the read cannot decide alone (a split, settings that refuse, a
 * recurrence no longer approved, another amount), a copy (its claim finds the first), or a charge changed since
 * its read: nothing was written for it.
 */
import { GroupCommit, perDatabase } from '../platform/db/group-commit.ts';
import { isUniqueViolation } from '../platform/db/errors.ts';
import { RECEIVER_ISPB } from '../platform/institution.ts';
import { LIMITS } from '../platform/limits.ts';
import { attemptPaidBy, ledgerIds, recurringSettlement } from '../pix/cobr/settlement.ts';
import { cobrPaidReaderFor } from '../pix/cobr/settlement-store.ts';
import type { ReceivedPixRow } from '../pix/received/store.ts';
import { payerOf, type SpiNode } from './credit.ts';
import type { CreditTransfer } from './messages.ts';
import { writeInboundRecurringCredits, type InboundRecurringCredit } from './recurring-store.ts';

export const recurringCreditWriterFor = perDatabase(
  (sql) =>
    new GroupCommit<InboundRecurringCredit, number | undefined>({
      write: (credits) => writeInboundRecurringCredits(sql, credits),
      statementsInFlight: LIMITS.spiCreditStatementsInFlight,
      batchMax: LIMITS.settlementBatchMax,
      // Two payments of one charge never share a statement: the second finds the charge changed.
      keyOf: (credit) => credit.charge.id,
      lockOrder: (credit) => credit.charge.id,
    }),
);

/** The recurring charge's Pix credited and its answer (built by `answerAt` at the credit's instant), or undefined. */
export async function creditRecurringCoalesced(
  ctx: SpiNode,
  message: CreditTransfer,
  answerAt: (now: Date) => string,
): Promise<{ answer: string; received: ReceivedPixRow } | undefined> {
  const { chave, conta, ispb } = message.creditor;
  const { idRec, txid } = message;
  if (!idRec || !txid || (!chave && !conta) || (ispb !== undefined && ispb !== RECEIVER_ISPB)) return undefined;
  const row = await cobrPaidReaderFor(ctx.db).submit({ txid, ...(chave ? { chave } : { conta }) });
  const index = attemptPaidBy(row, { idRec, endToEndId: message.endToEndId });
  if (!row || index === undefined) return undefined;
  const now = ctx.clock.forAccount(row.account_id).now();
  const payment = { amountCents: message.amountCents, payer: payerOf(message) };
  const settlement = recurringSettlement(row, index, payment, await ledgerIds(ctx.db, row), now);
  if (!settlement) return undefined;
  const answer = answerAt(now);
  let id: number | undefined;
  try {
    id = await recurringCreditWriterFor(ctx.db).submit({ ...settlement, msgId: message.msgId, answer });
  } catch (error) {
    // The same end-to-end id received otherwise meanwhile: the locked path answers it.
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
  return id === undefined ? undefined : { answer, received: { id: Number(id), ...settlement.pix } };
}
