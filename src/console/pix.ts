/**
 * Received and sent Pix, refunds and infractions of the current account over a period (default: the last
 * 30 days). Received and sent Pix are keyset pages, newest first, each with its own cursor (console/store.ts;
 * the API's `GET /v2/pix` and `GET /v2/gn/pix/enviados` page by offset, dearer the deeper they go), with the
 * refunds of the received ones. Infractions, few by nature, are the first page of `GET /v2/gn/infracoes`'s service.
 */
import type { AppContext } from '../platform/context.ts';
import { parseAmount } from '../platform/money.ts';
import { LIMITS } from '../platform/limits.ts';
import { refundsOf } from '../pix/received/store.ts';
import { listInfractionsOf } from '../pix/infractions/service.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { badge, brl, empty, html, when, type Html } from './render.ts';
import { receivedPixPage, sentPixPage } from './store.ts';
import { cursorOf, cursorText, olderLink, pager } from './paging.ts';

const DAY_MS = 86_400_000;
const WINDOW_DAYS = 30;

export interface PixQuery {
  from?: string;
  to?: string;
  /** Keyset cursors, one per list (console/paging.ts). */
  rbefore?: string;
  sbefore?: string;
}

export async function pixPage(ctx: AppContext, caller: Caller, q: PixQuery): Promise<Html> {
  const day = (text: string | undefined) =>
    text && /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(new Date(text).getTime()) ? text : undefined;
  const toDay = day(q.to) ?? caller.now.toISOString().slice(0, 10);
  const fromDay = day(q.from) ?? new Date(caller.now.getTime() - WINDOW_DAYS * DAY_MS).toISOString().slice(0, 10);
  const from = new Date(`${fromDay}T00:00:00Z`);
  const to = new Date(new Date(`${toDay}T00:00:00Z`).getTime() + DAY_MS);
  if (from >= to) return empty('O início do período é depois do fim.');
  const rbefore = cursorOf(q.rbefore);
  const sbefore = cursorOf(q.sbefore);
  const [received, sent, infractions] = await Promise.all([
    receivedPixPage(ctx.db, caller.accountId, { from, to, before: rbefore }, LIMITS.consolePageSize),
    sentPixPage(ctx.db, caller.accountId, { from, to, before: sbefore }, LIMITS.consolePageSize),
    listInfractionsOf(ctx.db, caller, {
      inicio: from.toISOString(),
      fim: new Date(to.getTime() - 1).toISOString(),
      'paginacao.paginaAtual': 0,
      'paginacao.itensPorPagina': LIMITS.consolePageSize,
    }),
  ]);
  const refunds = await refundsOf(
    ctx.db,
    received.rows.map((p) => p.id),
  );
  // Each list pages on its own; the other's position is kept in the link.
  const link = (cursors: { rbefore?: string; sbefore?: string }) => {
    const params = new URLSearchParams({ from: fromDay, to: toDay });
    for (const [name, value] of Object.entries(cursors)) if (value) params.set(name, value);
    return `/console/pix?${params}`;
  };
  const form = html`<form class="search" method="get" action="/console/pix">
<label>De <input type="date" name="from" value="${fromDay}"></label>
<label>Até <input type="date" name="to" value="${toDay}"></label>
<button type="submit">Mostrar</button></form>`;
  const receivedList = received.rows.length
    ? html`<div class="scroll"><table><caption class="sr">Pix recebidos, mais recentes primeiro</caption><thead><tr><th scope="col">Horário</th><th scope="col">endToEndId</th><th scope="col">txid</th><th scope="col" class="num">Valor</th><th scope="col">Devoluções</th></tr></thead><tbody>
${received.rows.map((p) => {
  const own = refunds.filter((d) => Number(d.received_pix_id) === p.id);
  return html`<tr><td>${when(p.received_at)}</td><td><code>${p.end_to_end_id}</code></td><td>${p.txid ? html`<code>${p.txid}</code>` : '—'}</td>
<td class="num">${brl(p.amount_cents)}</td>
<td>${own.length ? own.map((d) => html`<div>${brl(Number(d.amount_cents))} ${badge(d.status)}</div>`) : html`<span class="muted">nenhuma</span>`}</td></tr>`;
})}</tbody></table></div>
${pager(
  rbefore && link({ sbefore: q.sbefore }),
  olderLink(received, (last) => link({ rbefore: cursorText(last.received_at, last.id), sbefore: q.sbefore })),
)}`
    : empty(
        'Nenhum Pix recebido no período.',
        html`No sandbox, pague uma cobrança em <a href="/console/sandbox">Sandbox</a>.`,
      );
  const sentList = sent.rows.length
    ? html`<div class="scroll"><table><caption class="sr">Pix enviados, mais recentes primeiro</caption><thead><tr><th scope="col">Solicitação</th><th scope="col">idEnvio</th><th scope="col">Status</th><th scope="col" class="num">Valor</th></tr></thead><tbody>
${sent.rows.map((p) => html`<tr><td>${when(p.requested_at)}</td><td><code>${p.id_envio}</code></td><td>${badge(p.status)}</td><td class="num">${brl(p.amount_cents)}</td></tr>`)}
</tbody></table></div>
${pager(
  sbefore && link({ rbefore: q.rbefore }),
  olderLink(sent, (last) => link({ rbefore: q.rbefore, sbefore: cursorText(last.requested_at, last.id) })),
)}`
    : empty('Nenhum Pix enviado no período.', html`Envie um com <code>PUT /v3/gn/pix/:idEnvio</code>.`);
  const { quantidadeTotalDeItens } = infractions.parametros.paginacao;
  const infractionList = infractions.infracoes.length
    ? html`<ul class="cards">${infractions.infracoes.map(
        (i) =>
          html`<li>${badge(i.status)} ${brl(parseAmount(i.valor))} · <code>${i.endToEndId}</code> · ${i.tipoSituacao} · transação ${when(i.dataTransacao)}</li>`,
      )}</ul>
${quantidadeTotalDeItens > infractions.infracoes.length ? html`<p class="muted">${infractions.infracoes.length} de ${quantidadeTotalDeItens}: estreite o período para ver as outras.</p>` : ''}`
    : empty('Nenhuma infração (MED) no período.');
  return html`${form}
<section aria-labelledby="received"><h2 id="received">Recebidos</h2>${receivedList}</section>
<section aria-labelledby="sent"><h2 id="sent">Enviados</h2>${sentList}</section>
<section aria-labelledby="med"><h2 id="med">Infrações</h2>${infractionList}</section>`;
}
