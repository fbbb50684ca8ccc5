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

export interface PixView {
  endToEndId: string;
  txid?: string;
  valor: string;
  componentesValor?: Partial<Record<(typeof COMPONENT_NAMES)[number], { valor: string }>>;
  chave?: string;
  horario: string;
  pagador: { cpf?: string; cnpj?: string; nome: string };
  infoPagador?: string;
  devolucoes: RefundView[];
}

/**
 * Bacen `Pix`: the received payment with its refunds. Built by assignment rather than conditional spreads: a
 * page of GET /v2/pix builds a hundred of these, and the spreads' temporary objects were a tenth of pixd's CPU
 * on that route (profile, docs/performance.md session 5). Properties are added in the interface's order.
 */
export function pixView(p: Omit<ReceivedPixRow, 'id'> & { id?: number }, refunds: RefundRow[]): PixView {
  const view = { endToEndId: p.end_to_end_id } as PixView;
  if (p.txid) view.txid = p.txid;
  view.valor = formatAmount(p.amount_cents);
  if (p.components) {
    const components: NonNullable<PixView['componentesValor']> = {};
    for (const name of COMPONENT_NAMES) {
      const cents = p.components[name];
      if (cents) components[name] = { valor: formatAmount(cents) };
    }
    view.componentesValor = components;
  }
  if (p.chave) view.chave = p.chave;
  view.horario = p.received_at.toISOString();
  view.pagador = p.pagador_cpf
    ? { cpf: p.pagador_cpf, nome: p.pagador_nome }
    : { cnpj: p.pagador_cnpj ?? undefined, nome: p.pagador_nome };
  if (p.info_pagador) view.infoPagador = p.info_pagador;
  view.devolucoes = refunds.length ? refunds.filter((r) => r.received_pix_id === p.id).map(refundView) : [];
  return view;
}
