/**
 * What the gateway delivers (docs/spi.md): each message validated against its XSD, then
 *
 *   pacs.008  a Pix to this institution, run through the one payment engine (charge rules, key settings, split,
 *             webhooks) or, with an idRec, the recurring charge's settlement (src/pix/cobr); answered with a pacs.002,
 *             ACSP (credited) or RJCT and its reason. The message is claimed by MsgId and end-to-end id in the
 *             transaction that credits it, so a copy is answered with the first one's answer and never credits.
 *   pacs.002  the answer to one of pixd's outbound messages (answers.ts); no answer back.
 *   anything that does not validate: an admi.002 naming why.
 *
 * A refusal rolls the crediting transaction back whole (the engine may have written part of a payment) and the
 * RJCT is recorded in a second one, as a send's settlement does.
 */
import type { AppContext } from '../platform/context.ts';
import type { Sql } from '../platform/db/database.ts';
import { RECEIVER_ISPB } from '../platform/institution.ts';
import { receivePix, type PaymentTarget } from '../pix/payments/engine.ts';
import { PaymentRefused } from '../pix/payments/refusal.ts';
import { settleRecurringPayment } from '../pix/cobr/settlement.ts';
import { answerOutbound } from './answers.ts';
import {
  buildMessageReject,
  buildStatusReport,
  newMsgId,
  parseSpiMessage,
  SpiMessageInvalid,
  type CreditTransfer,
  type StatusReport,
} from './messages.ts';
import { accountOfConta, accountOfKey, chargeExists, claimInbound, setInboundAnswer } from './store.ts';

/** pixd's answer to a delivered message: the XML to hand back (none for a pacs.002), and its HTTP status. */
export interface InboundAnswer {
  status: 200 | 204 | 400;
  xml?: string;
}

/** The catalog's reason codes for the engine's refusals (AddtlInf carries the engine's message). */
const REASON_OF_REFUSAL: Record<string, string> = {
  chave_inexistente: 'AC03',
  conta_inexistente: 'AC03',
  cobranca_inexistente: 'AC03',
  chave_removida: 'AC07',
  cobranca_removida: 'AC07',
  cobranca_expirada: 'AC07',
  valor_divergente: 'AM09',
  valor_invalido: 'AM09',
  cobranca_paga: 'AM05',
  pix_duplicado: 'AM05',
};
/** Any other refusal (the receiver's settings, a participant's confirmation this path cannot wait for). */
const REASON_OTHER = 'AG03';

export async function receiveSpiMessage(ctx: AppContext, xml: string): Promise<InboundAnswer> {
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
  if (message.kind === 'pacs.008') return { status: 200, xml: await creditTransfer(ctx, message) };
  if (message.kind === 'pacs.002') {
    await answerOutbound(ctx.db, ctx.clock, { refId: message.originalId }, message);
    return { status: 204 };
  }
  // A pacs.004 to this institution (a return of one of its sends) and admi.002 are not built yet (docs/spi.md).
  const reject = {
    ref: message.kind === 'pacs.004' ? message.msgId : message.ref,
    reason: 'MSGT',
    at: ctx.clock.now(),
    description: `${message.kind} não é recebido por esta instituição.`,
  };
  return { status: 400, xml: buildMessageReject(reject) };
}

function answerTo(message: CreditTransfer, at: Date, refusal?: { code: string; info: string }): string {
  const base = {
    msgId: newMsgId(RECEIVER_ISPB),
    createdAt: at,
    originalMsgId: message.msgId,
    originalMsgName: 'pacs.008.spi.1.13',
    originalId: message.endToEndId,
  } as const;
  return refusal
    ? buildStatusReport({ ...base, status: 'RJCT', reason: refusal })
    : buildStatusReport({ ...base, status: 'ACSP', settledAt: at });
}

/** A copy whose first delivery has no committed answer (cannot be seen: the claim and its answer commit together). */
const inProcess = (message: CreditTransfer, at: Date) =>
  answerTo(message, at, { code: 'AM05', info: 'Mensagem em processamento.' });

/** Where the Pix lands: the charge of its txid, else its key (with the txid of a static code), else the account. */
async function targetOf(sql: Sql, message: CreditTransfer): Promise<{ target: PaymentTarget; accountId?: number }> {
  const { chave, conta } = message.creditor;
  if (chave) {
    const accountId = await accountOfKey(sql, chave);
    if (accountId !== undefined && message.txid && (await chargeExists(sql, accountId, message.txid)))
      return { target: { kind: 'charge', accountId, txid: message.txid }, accountId };
    return { target: { kind: 'key', chave, ...(message.txid && { txid: message.txid }) }, accountId };
  }
  return { target: { kind: 'account', conta: conta ?? '' }, accountId: await accountOfConta(sql, conta ?? '') };
}

class Refused extends Error {
  constructor(readonly reason: { code: string; info: string }) {
    super(reason.info);
  }
}

async function creditTransfer(ctx: AppContext, message: CreditTransfer) {
  const claim = (sql: Sql, accountId: number | null, at: Date) =>
    claimInbound(sql, { msgId: message.msgId, kind: 'pacs.008', refId: message.endToEndId, accountId, receivedAt: at });
  let refusal: { code: string; info: string };
  try {
    const answer = await ctx.db.tx(async (sql) => {
      const { target, accountId } = await targetOf(sql, message);
      const now = ctx.clock.forAccount(accountId).now();
      const earlier = await claim(sql, accountId ?? null, now);
      if (earlier) return earlier.answer ?? inProcess(message, now);
      if (message.creditor.ispb !== undefined && message.creditor.ispb !== RECEIVER_ISPB)
        throw new Refused({ code: 'AC03', info: `O ISPB ${message.creditor.ispb} não é desta instituição.` });
      const payer = {
        nome: message.debtor.nome,
        ...(message.debtor.cpf ? { cpf: message.debtor.cpf } : { cnpj: message.debtor.cnpj }),
      };
      // Automatic Pix: the recurrence's charge settles on its payer's pacs.008.
      if (message.idRec) {
        const { idRec, txid, endToEndId, amountCents } = message;
        await settleRecurringPayment(sql, now, { accountId, idRec, txid, endToEndId, amountCents, payer });
      } else
        await receivePix(sql, now, {
          target,
          amountCents: message.amountCents,
          payer,
          ...(message.infoPagador && { infoPagador: message.infoPagador }),
          origin: 'spi',
          endToEndId: message.endToEndId,
        });
      const xml = answerTo(message, now);
      await setInboundAnswer(sql, message.msgId, xml);
      return xml;
    });
    return answer;
  } catch (error) {
    if (error instanceof Refused) refusal = error.reason;
    else if (error instanceof PaymentRefused)
      refusal = { code: REASON_OF_REFUSAL[error.code] ?? REASON_OTHER, info: error.message };
    else throw error;
  }
  // Refused: record and answer the refusal (or the answer a copy recorded meanwhile).
  return ctx.db.tx(async (sql) => {
    const now = ctx.clock.now();
    const earlier = await claim(sql, null, now);
    if (earlier) return earlier.answer ?? inProcess(message, now);
    const xml = answerTo(message, now, refusal!);
    await setInboundAnswer(sql, message.msgId, xml);
    return xml;
  });
}
