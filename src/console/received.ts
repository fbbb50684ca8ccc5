/**
 * The received Pix of a charge, as every charge page shows them (cob, cobv, cobr): amount, time, payer, how
 * each was divided (split) and its refunds.
 */
import { parseAmount } from '../platform/money.ts';
import { badge, brl, empty, html, when, type Html } from './render.ts';

/** A received Pix as the API shows it (`GET /v2/pix/:e2eid`, a charge's `pix`). */
export interface PixShown {
  endToEndId: string;
  valor: string;
  horario: string;
  pagador?: { nome?: string; cpf?: string; cnpj?: string };
  devolucoes?: { id: string; rtrId: string; valor: string; status: string; horario: { solicitacao: string } }[];
}

/** Each Pix's split shares, by endToEndId (absent: not divided). */
export type Shares = Map<string, { nome: string; conta: string; amount_cents: number }[]>;

export function receivedPix(pix: PixShown[] | undefined, shares: Shares = new Map()): Html {
  if (!pix?.length) return empty('Nenhum Pix recebido por esta cobrança.');
  return html`<ul class="cards">${pix.map((p) => {
    const split = shares.get(p.endToEndId) ?? [];
    return html`<li><p><strong>${brl(parseAmount(p.valor))}</strong> em ${when(p.horario)}</p>
<p><code>${p.endToEndId}</code>${p.pagador?.nome ? html` · ${p.pagador.nome}` : ''}</p>
${split.length ? html`<p>Split: ${split.map((s, i) => html`${i ? '; ' : ''}${brl(s.amount_cents)} para ${s.nome} (conta ${s.conta})`)}</p>` : ''}
${p.devolucoes?.length ? html`<p>Devoluções:</p><ul>${p.devolucoes.map((d) => html`<li>${brl(parseAmount(d.valor))} ${badge(d.status)} ${when(d.horario.solicitacao)} <code>${d.rtrId}</code></li>`)}</ul>` : html`<p class="muted">Sem devoluções.</p>`}</li>`;
  })}</ul>`;
}
