/**
 * What the gateway delivers (docs/spi.md): each message validated against its XSD, then
 *
 *   pacs.008  a Pix to this institution, run through the one payment engine (charge rules, key settings, split,
 *             webhooks) or, with an idRec, the recurring charge's settlement (src/pix/cobr); answered with a pacs.002,
 *             ACSP (credited) or RJCT and its reason; to a key whose participant must confirm, held and answered
 *             202, its pacs.002 queued when decided (held.ts). The message is claimed by MsgId and end-to-end id in
 *             the transaction that credits it, so a copy is answered with the first one's answer (202 while held)
 *             and never credits.
 *   pacs.004  a return of a Pix this node sent through the SPI: credited back to the sender once per RtrId,
 *             answered ACSP, or RJCT (no such send, not settled, or more than its amount).
 *   pacs.002  the answer to one of pixd's outbound messages (answers.ts); no answer back.
 *   anything that does not validate: an admi.002 naming why.
 *
 * A refusal rolls the crediting transaction back whole (the engine may have written part of a payment) and the
 * RJCT is recorded in a second one, as a send's settlement does.
 */
import type { Sql } from '../platform/db/database.ts';
import { RECEIVER_ISPB } from '../platform/institution.ts';
import { receiveOrHold, type PaymentTarget } from '../pix/payments/engine.ts';
import type { HeldPix } from '../pix/payments/holds.ts';
import type { ReceivedPixRow } from '../pix/received/store.ts';
import { PaymentRefused } from '../pix/payments/refusal.ts';
import { settleRecurringPayment } from '../pix/cobr/settlement.ts';
import { creditReturnedPix } from '../pix/send/returns.ts';
import { lockCustomer } from '../platform/ledger/ledger.ts';
import { answerSendCoalesced } from './answer-batch.ts';
import { answerOutbound } from './answers.ts';
import { creditCoalesced, payerOf, type SenderReads, type SpiNode } from './credit.ts';
import { creditRecurringCoalesced } from './recurring-credit.ts';
import { catalogReason } from './held.ts';
import {
  buildMessageReject,
  buildStatusReport,
  newMsgId,
  parseSpiMessage,
  SpiMessageInvalid,
  type CreditTransfer,
  type PaymentReturn,
} from './messages.ts';
import {
  accountOfConta,
  accountOfKey,
  chargeExists,
  claimInbound,
  lockSentThroughSpi,
  recordInboundReturn,
  returnedCents,
  setInboundAnswer,
} from './store.ts';

/** pixd's answer to a delivered message: the XML to hand back (none for a pacs.002), and its HTTP status. */
export interface InboundAnswer {
  /** 202: a pacs.008 held for the receiving participant, its pacs.002 to follow on the outbound queue. */
  status: 200 | 202 | 204 | 400;
  xml?: string;
  /**
   * What the engine did with a pacs.008 this delivery decided (none for a copy): for a caller in this process
   * that shows it in the engine's own words (the sandbox's payer, src/sandbox/spi-institution.ts); the gateway
   * gets the XML only.
   */
  credit?: CreditDecision;
}

/** The engine's decision on a pacs.008: the Pix credited, held for its participant, or refused (its named code). */
export type CreditDecision =
  | { received: ReceivedPixRow }
  | { held: HeldPix }
  | { refused: { code: string; message: string } };

/** A message addressed to another institution (its creditor's or instructed agent's ISPB): refused AC03. */
const notHere = (ispb: string) =>
  ispb === RECEIVER_ISPB ? undefined : { code: 'AC03', info: `O ISPB ${ispb} não é desta instituição.` };

export async function receiveSpiMessage(ctx: SpiNode, xml: string, reads?: SenderReads): Promise<InboundAnswer> {
  let message: ReturnType<typeof parseSpiMessage>;
  try {
    message = parseSpiMessage(xml);
  } catch (error) {
    if (!(error instanceof SpiMessageInvalid)) throw error;
    const reject = {
      ref: error.msgId ?? 'NONREF',
      reason: error.reason,
      at: ctx.clock.now(),
      description: error.message,
    };
    return { status: 400, xml: buildMessageReject(reject) };
  }
  if (message.kind === 'pacs.008') {
    const { xml, credit } = await creditTransfer(ctx, message, reads);
    return xml === undefined ? { status: 202, credit } : { status: 200, xml, credit };
  }
  if (message.kind === 'pacs.002') {
    // A send's answer on its settlement path, shared with the answers in flight; anything else under the row lock.
    if ((await answerSendCoalesced(ctx, message.originalId, message)) === undefined)
      await answerOutbound(ctx.db, ctx.clock, { refId: message.originalId }, message);
    return { status: 204 };
  }
  if (message.kind === 'pacs.004') return { status: 200, xml: await paymentReturn(ctx, message) };
  // An admi.002 is the network's answer to a message of the gateway's; pixd's messages are validated before leaving.
  const reject = {
    ref: message.ref,
    reason: 'MSGT',
    at: ctx.clock.now(),
    description: `${message.kind} não é recebido por esta instituição.`,
  };
  return { status: 400, xml: buildMessageReject(reject) };
}

function answerTo(message: CreditTransfer | PaymentReturn, at: Date, refusal?: { code: string; info: string }): string {
  const base = {
    msgId: newMsgId(RECEIVER_ISPB),
    createdAt: at,
    originalMsgId: message.msgId,
    ...(message.kind === 'pacs.008'
      ? ({ originalMsgName: 'pacs.008.spi.1.13', originalId: message.endToEndId } as const)
      : ({ originalMsgName: 'pacs.004.spi.1.5', originalId: message.rtrId } as const)),
  } as const;
  return refusal
    ? buildStatusReport({ ...base, status: 'RJCT', reason: refusal })
    : buildStatusReport({ ...base, status: 'ACSP', settledAt: at });
}

/**
 * A return of a Pix this node sent through the SPI (the receiver's institution gives back part or all of it):
 * credited to the sender once per RtrId, as a return from a receiver in this pixd is (`creditReturnedPix`), and
 * answered ACSP; refused RJCT when it is addressed to another institution (its InstdAgt, AC03), no such send left
 * through the SPI (AC03), it has not settled (AG03), or the returns would exceed its amount (AM09). Nothing is
 * posted before the refusal, so claim and answer share one transaction; the sent Pix's lock serialises its returns.
 */
async function paymentReturn(ctx: SpiNode, message: PaymentReturn): Promise<string> {
  return ctx.db.tx(async (sql) => {
    const sent = await lockSentThroughSpi(sql, message.originalEndToEndId);
    const now = ctx.clock.forAccount(sent?.accountId).now();
    const claim = { msgId: message.msgId, kind: 'pacs.004', refId: message.rtrId, receivedAt: now };
    const earlier = await claimInbound(sql, { ...claim, accountId: sent?.accountId ?? null });
    if (earlier) return earlier.answer ?? answerTo(message, now, { code: 'AM05', info: 'Mensagem em processamento.' });
    const refusal =
      notHere(message.toIspb) ??
      (!sent
        ? { code: 'AC03', info: `Nenhum Pix ${message.originalEndToEndId} enviado pelo SPI por esta instituição.` }
        : sent.status !== 'REALIZADO'
          ? { code: 'AG03', info: `O Pix ${message.originalEndToEndId} está ${sent.status}.` }
          : (await returnedCents(sql, message.originalEndToEndId)) + message.amountCents > sent.amountCents
            ? { code: 'AM09', info: 'As devoluções excedem o valor do Pix.' }
            : undefined);
    if (sent && !refusal) {
      await lockCustomer(sql, sent.accountId);
      await creditReturnedPix(
        sql,
        { accountId: sent.accountId, amountCents: message.amountCents, rtrId: message.rtrId },
        now,
      );
      await recordInboundReturn(sql, message.msgId, message.originalEndToEndId, message.amountCents);
    }
    const xml = answerTo(message, now, refusal);
    await setInboundAnswer(sql, message.msgId, xml);
    return xml;
  });
}

/**
 * Where the Pix lands: the charge of its txid, else its key (with the txid of a static code and how it was
 * initiated: a key's settings may refuse static QR codes), else the account.
 */
async function targetOf(sql: Sql, message: CreditTransfer): Promise<{ target: PaymentTarget; accountId?: number }> {
  const { chave, conta } = message.creditor;
  if (chave) {
    const accountId = await accountOfKey(sql, chave);
    if (accountId !== undefined && message.txid && (await chargeExists(sql, accountId, message.txid)))
      return { target: { kind: 'charge', accountId, txid: message.txid }, accountId };
    const fromStaticQrCode = message.initiation === 'QRES';
    return {
      target: {
        kind: 'key',
        chave,
        ...(message.txid && { txid: message.txid }),
        ...(fromStaticQrCode && { fromStaticQrCode }),
      },
      accountId,
    };
  }
  return { target: { kind: 'account', conta: conta ?? '' }, accountId: await accountOfConta(sql, conta ?? '') };
}

class Refused extends Error {
  constructor(readonly reason: { code: string; info: string }) {
    super(reason.info);
  }
}

/**
 * The pacs.002 answering a pacs.008, or none: held for the receiving participant, answered later (held.ts); with
 * what the engine decided, when this delivery decided it.
 */
async function creditTransfer(
  ctx: SpiNode,
  message: CreditTransfer,
  reads: SenderReads | undefined,
): Promise<{ xml: string | undefined; credit?: CreditDecision }> {
  const answerAt = (now: Date) => answerTo(message, now);
  const coalesced =
    (await creditCoalesced(ctx, message, answerAt, reads)) ?? (await creditRecurringCoalesced(ctx, message, answerAt));
  if (coalesced !== undefined) return { xml: coalesced.answer, credit: { received: coalesced.received } };
  let credit: CreditDecision | undefined;
  const claim = (sql: Sql, accountId: number | null, at: Date) =>
    claimInbound(sql, { msgId: message.msgId, kind: 'pacs.008', refId: message.endToEndId, accountId, receivedAt: at });
  let refusal: { code: string; info: string };
  try {
    const answer = await ctx.db.tx(async (sql) => {
      const { target, accountId } = await targetOf(sql, message);
      const now = ctx.clock.forAccount(accountId).now();
      const earlier = await claim(sql, accountId ?? null, now);
      if (earlier) return earlier.answer ?? undefined;
      const elsewhere = message.creditor.ispb === undefined ? undefined : notHere(message.creditor.ispb);
      if (elsewhere) throw new Refused(elsewhere);
      const payer = payerOf(message);
      // Automatic Pix: the recurrence's charge settles on its payer's pacs.008.
      if (message.idRec) {
        const { idRec, txid, endToEndId, amountCents } = message;
        credit = {
          received: await settleRecurringPayment(sql, now, { accountId, idRec, txid, endToEndId, amountCents, payer }),
        };
      } else {
        const reception = await receiveOrHold(sql, now, {
          target,
          amountCents: message.amountCents,
          payer,
          ...(message.infoPagador && { infoPagador: message.infoPagador }),
          origin: 'spi',
          endToEndId: message.endToEndId,
        });
        // Held for the receiving participant: answered when decided (held.ts), its claim without an answer till then.
        if (reception.held) {
          credit = { held: reception.held };
          return undefined;
        }
        credit = { received: reception.received };
      }
      const xml = answerTo(message, now);
      await setInboundAnswer(sql, message.msgId, xml);
      return xml;
    });
    return { xml: answer, ...(credit && { credit }) };
  } catch (error) {
    if (error instanceof Refused) {
      refusal = error.reason;
      credit = { refused: { code: error.reason.code, message: error.reason.info } };
    } else if (error instanceof PaymentRefused) {
      refusal = { code: catalogReason(error.code), info: error.message };
      credit = { refused: { code: error.code, message: error.message } };
    } else throw error;
  }
  // Refused: record and answer the refusal (or the answer a copy recorded meanwhile).
  return ctx.db.tx(async (sql) => {
    const now = ctx.clock.now();
    const earlier = await claim(sql, null, now);
    if (earlier) return { xml: earlier.answer ?? undefined };
    const xml = answerTo(message, now, refusal!);
    await setInboundAnswer(sql, message.msgId, xml);
    return { xml, credit };
  });
}
