/**
 * The settlement path of an inbound pacs.008 to a key (docs/spi.md, "Throughput"): the common case — a Pix to a
 * key of this node, no txid, nothing for a participant to confirm — decided on the engine's read of the key
 * (src/pix/payments/key-settlement.ts) and written with the message's claim and its ACSP answer by one
 * statement (`writeInboundCredits`), both shared by the messages that arrive while one is in flight (group
 * commit, docs/ledger.md), instead of a transaction of a dozen round trips per message.
 *
 * Undefined means "decide it on the locked path" (inbound.ts): the message is not of this shape, the key is not
 * one the read can settle, the message was seen before (the claim finds it; the locked path answers with the
 * first answer), the key changed since it was read, or the statement refused it (an end-to-end id received
 * otherwise): nothing was written for it.
 */
import type { AppContext } from '../platform/context.ts';
import { GroupCommit, perDatabase } from '../platform/db/group-commit.ts';
import { isUniqueViolation } from '../platform/db/errors.ts';
import { RECEIVER_ISPB } from '../platform/institution.ts';
import { LIMITS } from '../platform/limits.ts';
import { keyReadsFor, keySettlement } from '../pix/payments/key-settlement.ts';
import type { ReceivedPixRow } from '../pix/received/store.ts';
import type { CreditTransfer } from './messages.ts';
import { writeInboundCredits, type InboundCredit } from './store.ts';

/** What the inbound path uses of the node: its database and its clock. */
export type SpiNode = Pick<AppContext, 'db' | 'clock'>;

const creditWriterFor = perDatabase(
  (sql) =>
    new GroupCommit<InboundCredit, ReceivedPixRow | undefined>({
      write: (credits) => writeInboundCredits(sql, credits),
      statementsInFlight: LIMITS.spiCreditStatementsInFlight,
      batchMax: LIMITS.settlementBatchMax,
      // Two copies of one Pix never share a statement: the second's claim finds the first's.
      keyOf: (credit) => credit.pix.end_to_end_id,
      lockOrder: (credit) => credit.ledger.availableId,
    }),
);

/** The payer as the engine records it: the debtor's name and document. */
export const payerOf = ({ debtor }: CreditTransfer) => ({
  nome: debtor.nome,
  ...(debtor.cpf ? { cpf: debtor.cpf } : { cnpj: debtor.cnpj }),
});

/** The Pix credited and its answer (built by `answerAt` at the credit's instant), or undefined (above). */
export async function creditCoalesced(
  ctx: SpiNode,
  message: CreditTransfer,
  answerAt: (now: Date) => string,
): Promise<{ answer: string; received: ReceivedPixRow } | undefined> {
  const { chave, ispb } = message.creditor;
  if (
    !chave ||
    message.txid ||
    message.idRec ||
    message.initiation === 'QRES' ||
    (ispb !== undefined && ispb !== RECEIVER_ISPB)
  )
    return undefined;
  const keys = keyReadsFor(ctx.db);
  const key = await keys.read(chave);
  const now = ctx.clock.forAccount(key?.account_id).now();
  const incoming = {
    target: { kind: 'key', chave } as const,
    amountCents: message.amountCents,
    payer: payerOf(message),
    ...(message.infoPagador && { infoPagador: message.infoPagador }),
    origin: 'spi' as const,
    endToEndId: message.endToEndId,
  };
  const settlement = keySettlement(key, incoming, now);
  if (!settlement) return undefined;
  const answer = answerAt(now);
  let credited: ReceivedPixRow | undefined;
  try {
    credited = await creditWriterFor(ctx.db).submit({ ...settlement, msgId: message.msgId, answer });
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
  // Not credited: a copy, or the key changed since it was read (read it afresh next time).
  if (credited) keys.keep(key!);
  else keys.forget(chave);
  return credited && { answer, received: credited };
}
