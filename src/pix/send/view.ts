/** How a sent Pix is shown: the request's answer, reads (documents masked) and the sent-Pix webhook. */
import { maskDocumentNumber } from '../../platform/documents.ts';
import { formatAmount } from '../../platform/money.ts';
import type { SentPixView as WebhookSentPix } from '../webhook/payloads.ts';
import type { SentFavorecido, SentPixRow } from './store.ts';

export function maskDocument(doc: { cpf?: string; cnpj?: string }): { cpf?: string; cnpj?: string } {
  if (doc.cpf) return { cpf: maskDocumentNumber(doc.cpf) };
  if (doc.cnpj) return { cnpj: maskDocumentNumber(doc.cnpj) };
  return {};
}

export function sendView(s: SentPixRow) {
  return {
    idEnvio: s.id_envio,
    e2eId: s.end_to_end_id,
    valor: formatAmount(s.amount_cents),
    horario: { solicitacao: s.requested_at.toISOString() },
    status: s.status,
  };
}

function favorecidoRead(f: SentFavorecido) {
  return {
    ...(f.chave && { chave: f.chave }),
    ...(f.identificacao && { identificacao: { nome: f.identificacao.nome, ...maskDocument(f.identificacao) } }),
    ...(f.contaBanco && { contaBanco: f.contaBanco }),
  };
}

export function sentPixRead(s: SentPixRow) {
  return {
    endToEndId: s.end_to_end_id,
    idEnvio: s.id_envio,
    valor: formatAmount(s.amount_cents),
    chave: s.payer_key,
    status: s.status,
    ...(s.info_pagador && { infoPagador: s.info_pagador }),
    ...(s.motivo && { motivo: s.motivo }),
    horario: {
      solicitacao: s.requested_at.toISOString(),
      ...(s.settled_at && s.status === 'REALIZADO' && { liquidacao: s.settled_at.toISOString() }),
    },
    favorecido: favorecidoRead(s.favorecido),
  };
}

/** The sent-Pix callback element: what the key's `envio.webhook.notificacao` may show is filtered at delivery. */
export function sentPixWebhook(s: SentPixRow, at: Date): WebhookSentPix {
  const f = s.favorecido;
  const nome = f.identificacao?.nome ?? f.contaBanco?.nome ?? '';
  return {
    endToEndId: s.end_to_end_id,
    valor: formatAmount(s.amount_cents),
    horario: at.toISOString(),
    chave: s.payer_key,
    status: s.status,
    gnExtras: {
      idEnvio: s.id_envio,
      favorecido: f.contaBanco
        ? {
            nome,
            contaBanco: { ispb: f.contaBanco.codigoBanco, agencia: f.contaBanco.agencia, conta: f.contaBanco.conta },
          }
        : { nome, chave: f.chave ?? '' },
      ...(s.motivo && { erro: { motivo: s.motivo } }),
    },
  };
}
