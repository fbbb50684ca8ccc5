import { formatAmount } from '../../platform/money.ts';
import type { ReceivedPixRow, RefundRow } from './store.ts';

export function refundView(r: RefundRow) {
  return {
    id: r.refund_id,
    rtrId: r.rtr_id,
    valor: formatAmount(r.amount_cents),
    natureza: r.natureza,
    ...(r.descricao && { descricao: r.descricao }),
    horario: {
      solicitacao: r.requested_at.toISOString(),
      ...(r.settled_at && { liquidacao: r.settled_at.toISOString() }),
    },
    status: r.status,
    ...(r.motivo && { motivo: r.motivo }),
  };
}

export type RefundView = ReturnType<typeof refundView>;

const COMPONENT_NAMES = ['original', 'juros', 'multa', 'abatimento', 'desconto'] as const;

/** Bacen `Pix`: the received payment with its refunds. */
export function pixView(p: Omit<ReceivedPixRow, 'id'> & { id?: number }, refunds: RefundRow[]) {
  const components = p.components
    ? Object.fromEntries(
        COMPONENT_NAMES.filter((name) => p.components![name]).map((name) => [
          name,
          { valor: formatAmount(p.components![name]) },
        ]),
      )
    : undefined;
  return {
    endToEndId: p.end_to_end_id,
    ...(p.txid && { txid: p.txid }),
    valor: formatAmount(p.amount_cents),
    ...(components && { componentesValor: components }),
    ...(p.chave && { chave: p.chave }),
    horario: p.received_at.toISOString(),
    pagador: {
      ...(p.pagador_cpf ? { cpf: p.pagador_cpf } : { cnpj: p.pagador_cnpj ?? undefined }),
      nome: p.pagador_nome,
    },
    ...(p.info_pagador && { infoPagador: p.info_pagador }),
    devolucoes: refunds.filter((r) => r.received_pix_id === p.id).map(refundView),
  };
}

export type PixView = ReturnType<typeof pixView>;
