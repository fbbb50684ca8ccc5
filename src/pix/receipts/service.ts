/**
 * Pix receipts (`GET /v2/gn/pix/comprovantes`, docs/sending.md "Receipts"): one identifier names a Pix the
 * account sent (`idEnvio`, or its `e2eid`), received (`e2eid`, or the `txid` of the charge it paid) or
 * refunded (`rtrId`); the receipt shows what a person keeps of it: the amount, both parties with their
 * documents masked, the end-to-end id and the time. ./pdf.ts draws it.
 */
import type { Sql } from '../../platform/db/database.ts';
import { maskDocumentNumber } from '../../platform/documents.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { findReceivedPix, findReceivedPixById, findReceivedPixByTxid, refundsOf } from '../received/store.ts';
import type { ReceivedPixRow } from '../received/store.ts';
import { accountHolder, findSentByE2e, findSentByIdEnvio, type SentPixRow } from '../send/store.ts';
import { findPixByReturnId } from '../webhook/store.ts';

export const RECEIPT_INVALID = 'ComprovanteConsultaInvalida';

export interface ReceiptQuery {
  e2eid?: string;
  idEnvio?: string;
  rtrId?: string;
  txid?: string;
}

export interface ReceiptParty {
  nome: string;
  documento: string;
  chave?: string;
}

export interface Receipt {
  titulo: string;
  amountCents: number;
  at: Date;
  endToEndId: string;
  pagador: ReceiptParty;
  recebedor: ReceiptParty;
  /** Lines shown under the parties when present: txid, idEnvio, the payer's message, the refund's nature. */
  detalhes: [string, string][];
}

const party = (nome: string, documento: string | null | undefined, chave?: string | null): ReceiptParty => ({
  nome,
  documento: documento ? maskDocumentNumber(documento) : '',
  ...(chave ? { chave } : {}),
});

function payerOf(pix: ReceivedPixRow): ReceiptParty {
  return party(pix.pagador_nome, pix.pagador_cpf ?? pix.pagador_cnpj);
}

async function sentReceipt(sql: Sql, sent: SentPixRow): Promise<Receipt> {
  if (sent.status !== 'REALIZADO')
    throw notFound(
      `O Pix ${sent.end_to_end_id} está ${sent.status}: só um Pix realizado tem comprovante.`,
      'ComprovanteNaoEncontrado',
    );
  const holder = await accountHolder(sql, sent.account_id);
  const receiver = sent.favorecido.identificacao;
  return {
    titulo: 'Comprovante de Pix enviado',
    amountCents: sent.amount_cents,
    at: sent.settled_at ?? sent.requested_at,
    endToEndId: sent.end_to_end_id,
    pagador: party(holder.nome, holder.documento, sent.payer_key),
    recebedor: party(receiver?.nome ?? '', receiver?.cpf ?? receiver?.cnpj, sent.favorecido.chave),
    detalhes: [['idEnvio', sent.id_envio], ...(sent.info_pagador ? [['Mensagem', sent.info_pagador]] : [])] as [
      string,
      string,
    ][],
  };
}

async function receivedReceipt(sql: Sql, pix: ReceivedPixRow): Promise<Receipt> {
  const holder = await accountHolder(sql, pix.account_id);
  return {
    titulo: 'Comprovante de Pix recebido',
    amountCents: pix.amount_cents,
    at: pix.received_at,
    endToEndId: pix.end_to_end_id,
    pagador: payerOf(pix),
    recebedor: party(holder.nome, holder.documento, pix.chave),
    detalhes: [
      ...(pix.txid ? [['txid', pix.txid]] : []),
      ...(pix.info_pagador ? [['Mensagem', pix.info_pagador]] : []),
    ] as [string, string][],
  };
}

async function refundReceipt(sql: Sql, accountId: number, rtrId: string): Promise<Receipt | undefined> {
  const found = await findPixByReturnId(sql, accountId, rtrId);
  const pix = found && (await findReceivedPixById(sql, found.received_pix_id));
  if (!pix) return undefined;
  const refund = (await refundsOf(sql, [pix.id])).find((r) => r.rtr_id === rtrId)!;
  if (refund.status !== 'DEVOLVIDO')
    throw notFound(
      `A devolução ${rtrId} está ${refund.status}: só uma devolução realizada tem comprovante.`,
      'ComprovanteNaoEncontrado',
    );
  const holder = await accountHolder(sql, accountId);
  return {
    titulo: 'Comprovante de devolução de Pix',
    amountCents: refund.amount_cents,
    at: refund.settled_at ?? refund.requested_at,
    endToEndId: refund.rtr_id,
    pagador: party(holder.nome, holder.documento),
    recebedor: payerOf(pix),
    detalhes: [
      ['Pix devolvido', pix.end_to_end_id],
      ['Devolução', refund.refund_id],
    ],
  };
}

/** The receipt the one identifier names; 400 for none or several, 404 for a Pix the account does not have. */
export async function findReceipt(sql: Sql, accountId: number, query: ReceiptQuery): Promise<Receipt> {
  const given = Object.entries(query).filter(([, value]) => value !== undefined);
  if (given.length !== 1)
    throw invalid(RECEIPT_INVALID, 'Informe exatamente um identificador: e2eid, idEnvio, rtrId ou txid.', [
      { property: 'e2eid', reason: `${given.length} identificadores informados.` },
    ]);
  const [[name, value]] = given as [keyof ReceiptQuery, string][];
  let receipt: Receipt | undefined;
  if (name === 'idEnvio') {
    const sent = await findSentByIdEnvio(sql, accountId, value);
    receipt = sent && (await sentReceipt(sql, sent));
  } else if (name === 'e2eid') {
    const sent = await findSentByE2e(sql, accountId, value);
    const received = sent ? undefined : await findReceivedPix(sql, accountId, value);
    receipt = sent ? await sentReceipt(sql, sent) : received && (await receivedReceipt(sql, received));
  } else if (name === 'txid') {
    const received = await findReceivedPixByTxid(sql, accountId, value);
    receipt = received && (await receivedReceipt(sql, received));
  } else receipt = await refundReceipt(sql, accountId, value);
  if (!receipt) throw notFound(`Nenhum Pix desta conta com ${name} ${value}.`, 'ComprovanteNaoEncontrado');
  return receipt;
}
