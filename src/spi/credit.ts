/**
 * The settlement paths of an inbound pacs.008 (docs/spi.md, "Throughput"): the common cases — a Pix to a key of
 * this node, or to the charge of a key's txid (a dynamic QR code), nothing for a participant to confirm —
 * decided on the engine's unlocked reads (the key's, src/pix/payments/key-settlement.ts; the charge's,
 * `settlementReaderFor`) by the engine's rules, and written with the message's claim and its ACSP answer by one
 * statement (`writeInboundCredits`, `writeInboundChargeCredits`), reads and writes shared by the messages that
 * arrive while one is in flight (group commit, docs/ledger.md), instead of a transaction of a dozen round trips
 * per message.
 *
 * Undefined means "decide it on the locked path" (inbound.ts): the message is not of these shapes, what it pays
 * is not something the read can settle (a split, a boleto, a participant's key, a first payment, a refusal: the
 * locked path refuses it in the same words), the message was seen before (the claim finds it; the locked path
 * answers with the first answer), the key or the charge changed since it was read, or the statement refused it
 * (an end-to-end id received otherwise): nothing was written for it.
 */
import type { AppContext } from '../platform/context.ts';
import { GroupCommit, perDatabase } from '../platform/db/group-commit.ts';
import { isUniqueViolation } from '../platform/db/errors.ts';
import { RECEIVER_ISPB } from '../platform/institution.ts';
import { LIMITS } from '../platform/limits.ts';
import { chargeSettlement, type IncomingPix } from '../pix/payments/engine.ts';
import { keyReadsFor, keySettlement, type KeyForSettlement } from '../pix/payments/key-settlement.ts';
import { PaymentRefused } from '../pix/payments/refusal.ts';
import { settlementReaderFor } from '../pix/payments/settlement-batcher.ts';
import type { ChargeForSettlement } from '../pix/payments/store.ts';
import type { ReceivedPixRow } from '../pix/received/store.ts';
import type { CreditTransfer } from './messages.ts';
import {
  writeInboundChargeCredits,
  writeInboundCredits,
  type InboundChargeCredit,
  type InboundCredit,
} from './store.ts';

/** What the inbound path uses of the node: its database and its clock. */
export type SpiNode = Pick<AppContext, 'db' | 'clock'>;

/**
 * What a sender in this node read before it sent the message, handed to the inbound path so it is not read
 * again: the sandbox's payer reads the charge it pays, as a payer's app does, and the node would read it again
 * moments later (docs/performance.md, session 15). A gateway's messages come with none. Trusted only as a read:
 * the charge is paid only while still the version read (the write's compare-and-set), else on the locked path.
 */
export interface SenderReads {
  charge?: ChargeForSettlement;
}

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

export const chargeCreditWriterFor = perDatabase(
  (sql) =>
    new GroupCommit<InboundChargeCredit, ReceivedPixRow | undefined>({
      write: (credits) => writeInboundChargeCredits(sql, credits),
      statementsInFlight: LIMITS.spiChargeCreditStatementsInFlight,
      batchMax: LIMITS.settlementBatchMax,
      // Two payments of one charge (copies of one message among them) never share a statement: the second finds
      // the charge paid, or its claim the first's.
      keyOf: (credit) => credit.charge.id,
      lockOrder: (credit) => credit.charge.id,
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
  reads: SenderReads = {},
): Promise<{ answer: string; received: ReceivedPixRow } | undefined> {
  const { chave, ispb } = message.creditor;
  if (!chave || message.idRec || (ispb !== undefined && ispb !== RECEIVER_ISPB)) return undefined;
  // A static QR code's Pix to a key: its settings may refuse those (the locked path reads them).
  if (!message.txid && message.initiation === 'QRES') return undefined;
  const keys = keyReadsFor(ctx.db);
  const key = await keys.read(chave);
  const now = ctx.clock.forAccount(key?.account_id).now();
  const incoming = {
    amountCents: message.amountCents,
    payer: payerOf(message),
    ...(message.infoPagador && { infoPagador: message.infoPagador }),
    origin: 'spi' as const,
    endToEndId: message.endToEndId,
  };
  const claim = { msgId: message.msgId, answer: answerAt(now) };
  let credited: ReceivedPixRow | undefined;
  try {
    if (message.txid) {
      const credit = await chargeCredit(ctx, key, message.txid, incoming, now, reads.charge);
      if (!credit) return undefined;
      credited = await chargeCreditWriterFor(ctx.db).submit({ ...credit, ...claim });
    } else {
      const settlement = keySettlement(key, { ...incoming, target: { kind: 'key', chave } }, now);
      if (!settlement) return undefined;
      credited = await creditWriterFor(ctx.db).submit({ ...settlement, ...claim });
    }
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
  // Not credited: a copy, or the key or the charge changed since it was read (the key read afresh next time).
  if (credited) keys.keep(key!);
  else keys.forget(chave);
  return credited && { answer: claim.answer, received: credited };
}

/**
 * A pacs.008 to the charge of its key's txid, decided by the engine's rules (`chargeSettlement`) on the
 * charge's settlement read; undefined when the locked path decides it (the module comment): no such charge on
 * the key's account (the locked path then pays the key, with the txid), a charge of another of its keys, or
 * one the read cannot settle or that the rules refuse.
 */
async function chargeCredit(
  ctx: SpiNode,
  key: KeyForSettlement | undefined,
  txid: string,
  incoming: Omit<IncomingPix, 'target'>,
  now: Date,
  read: ChargeForSettlement | undefined,
): Promise<Omit<InboundChargeCredit, 'msgId' | 'answer'> | undefined> {
  if (!key || key.removed_at || key.confirm_incoming) return undefined;
  const target = { kind: 'charge', accountId: key.account_id, txid } as const;
  const charge =
    read?.account_id === key.account_id && read.txid === txid ? read : await settlementReaderFor(ctx.db).submit(target);
  if (!charge || charge.chave !== key.chave) return undefined;
  try {
    const settlement = chargeSettlement(charge, { ...incoming, target }, now);
    return settlement && { ...settlement, key: { chave: key.chave, version: key.version } };
  } catch (error) {
    if (error instanceof PaymentRefused) return undefined;
    throw error;
  }
}
