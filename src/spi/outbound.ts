/**
 * Money leaving through the SPI boundary: a send becomes a pacs.008, a refund of a Pix that came through the
 * SPI a pacs.004, each a row of the outbound queue written in the transaction that holds the money (so a message
 * exists exactly when its money is held). The gateway pulls the queue in order and acknowledges what it took
 * (at-least-once: what it did not acknowledge comes again). Each message waits for its pacs.002; one that has
 * none `LIMITS.spiAnswerTimeoutMs` after it was queued is answered by pixd as the SPI answers a participant
 * that did not answer in time: RJCT AB03 (answers.ts settles either way).
 */
import type { Sql } from '../platform/db/database.ts';
import type { ExternalSend } from '../platform/extensions.ts';
import { RECEIVER_ISPB } from '../platform/institution.ts';
import { LIMITS } from '../platform/limits.ts';
import { enqueue } from '../platform/outbox/jobs.ts';
import { SPI_TIMEOUT_TOPIC } from './answers.ts';
import { buildCreditTransfer, buildPaymentReturn, newMsgId, type AccountType, type ReturnReason } from './messages.ts';
import { insertOutbound, type OutboundRow } from './store.ts';

/** Queues a message and its deadline, in the caller's transaction. */
async function queue(sql: Sql, row: Parameters<typeof insertOutbound>[1]): Promise<OutboundRow> {
  const queued = await insertOutbound(sql, row);
  await enqueue(sql, {
    topic: SPI_TIMEOUT_TOPIC,
    payload: { outboundId: queued.id },
    accountId: row.account_id,
    availableAt: new Date(row.created_at.getTime() + LIMITS.spiAnswerTimeoutMs),
    now: row.created_at,
  });
  return queued;
}

const documentOf = (who: { cpf?: string; cnpj?: string }) => (who.cnpj ? { cnpj: who.cnpj } : { cpf: who.cpf });

/** A send to another institution as a pacs.008: by bank data it names the account; by key, the key alone. */
export function queueCreditTransfer(sql: Sql, send: ExternalSend, now: Date): Promise<OutboundRow> {
  const conta = send.favorecido.contaBanco;
  const msgId = newMsgId(RECEIVER_ISPB);
  const xml = buildCreditTransfer({
    msgId,
    createdAt: now,
    endToEndId: send.endToEndId,
    amountCents: send.amountCents,
    acceptedAt: now,
    debtor: {
      ispb: RECEIVER_ISPB,
      nome: send.payer.nome,
      ...documentOf(send.payer),
      conta: send.payer.conta,
      tipoConta: 'CACC',
    },
    // A key is resolved in the DICT by the gateway, which completes the receiver's institution and account.
    creditor: conta
      ? {
          ispb: conta.codigoBanco,
          nome: conta.nome,
          ...documentOf(conta),
          conta: conta.conta,
          agencia: conta.agencia,
          tipoConta: conta.tipoConta.toUpperCase() as AccountType,
        }
      : { chave: send.favorecido.chave },
    ...(send.infoPagador && { infoPagador: send.infoPagador.slice(0, 140) }),
  });
  return queue(sql, {
    account_id: send.accountId,
    kind: 'pacs.008',
    msg_id: msgId,
    ref_id: send.endToEndId,
    sent_pix_id: send.sentPixId,
    refund_id: null,
    xml,
    created_at: now,
  });
}

export interface OutboundReturn {
  refundId: number;
  accountId: number;
  rtrId: string;
  originalEndToEndId: string;
  amountCents: number;
  reason: ReturnReason;
  info?: string;
}

/** A refund (MD06) or MED return (FR01) of a Pix that came through the SPI, as a pacs.004 to its payer's institution. */
export function queuePaymentReturn(sql: Sql, back: OutboundReturn, now: Date): Promise<OutboundRow> {
  const msgId = newMsgId(RECEIVER_ISPB);
  const xml = buildPaymentReturn({
    msgId,
    createdAt: now,
    rtrId: back.rtrId,
    originalEndToEndId: back.originalEndToEndId,
    amountCents: back.amountCents,
    fromIspb: RECEIVER_ISPB,
    // The payer's institution is the ISPB inside the end-to-end id it generated.
    toIspb: back.originalEndToEndId.slice(1, 9),
    reason: back.reason,
    ...(back.info && { info: back.info }),
  });
  return queue(sql, {
    account_id: back.accountId,
    kind: 'pacs.004',
    msg_id: msgId,
    ref_id: back.rtrId,
    sent_pix_id: null,
    refund_id: back.refundId,
    xml,
    created_at: now,
  });
}
