/**
 * Received and sent Pix, refunds and infractions of the current account over a period (default: the last
 * 30 days), read through the API's list services (`GET /v2/pix`, `GET /v2/gn/pix/enviados`,
 * `GET /v2/gn/infracoes`) with their own paging.
 */
import type { AppContext } from '../platform/context.ts';
import { parseAmount } from '../platform/money.ts';
import { LIMITS } from '../platform/limits.ts';
import type { Static } from '@sinclair/typebox';
import { listPix } from '../pix/received/service.ts';
import type { PixView } from '../pix/received/schemas.ts';
import { listSentPix } from '../pix/send/service.ts';
import { listInfractionsOf } from '../pix/infractions/service.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { badge, brl, empty, html, when, type Html } from './render.ts';

/** `GET /v2/pix`'s page, as the console reads it. */
interface ReceivedPage {
  parametros: { paginacao: { quantidadeDePaginas: number; quantidadeTotalDeItens: number } };
  pix: Static<typeof PixView>[];
}

const DAY_MS = 86_400_000;
const WINDOW_DAYS = 30;

export interface PixQuery {
  from?: string;
  to?: string;
  page?: string;
}

export async function pixPage(ctx: AppContext, caller: Caller, q: PixQuery): Promise<Html> {
  const day = (text: string | undefined) =>
    text && /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(new Date(text).getTime()) ? text : undefined;
  const toDay = day(q.to) ?? caller.now.toISOString().slice(0, 10);
  const fromDay = day(q.from) ?? new Date(caller.now.getTime() - WINDOW_DAYS * DAY_MS).toISOString().slice(0, 10);
  const window = {
    inicio: `${fromDay}T00:00:00Z`,
    fim: new Date(new Date(`${toDay}T00:00:00Z`).getTime() + DAY_MS - 1).toISOString(),
    'paginacao.paginaAtual': Math.max(0, Math.min(Number(q.page) || 0, 10_000)),
    'paginacao.itensPorPagina': LIMITS.consolePageSize,
  };
  if (window.inicio > window.fim) return empty('O início do período é depois do fim.');
  const [received, sent, infractions] = await Promise.all([
    // The API's own page, which it builds as JSON text in the database.
    listPix(ctx.db, caller, window).then((json) => JSON.parse(json) as ReceivedPage),
    listSentPix(ctx.db, caller, window),
    listInfractionsOf(ctx.db, caller, window),
  ]);
  const form = html`<form class="search" method="get" action="/console/pix">
<label>De <input type="date" name="from" value="${fromDay}"></label>
<label>Até <input type="date" name="to" value="${toDay}"></label>
<button type="submit">Mostrar</button></form>`;
  const receivedList = received.pix.length
    ? html`<div class="scroll"><table><caption class="sr">Pix recebidos</caption><thead><tr><th scope="col">Horário</th><th scope="col">endToEndId</th><th scope="col">txid</th><th scope="col" class="num">Valor</th><th scope="col">Devoluções</th></tr></thead><tbody>
${received.pix.map(
  (
    p,
  ) => html`<tr><td>${when(p.horario)}</td><td><code>${p.endToEndId}</code></td><td>${p.txid ? html`<code>${p.txid}</code>` : '—'}</td>
<td class="num">${brl(parseAmount(p.valor))}</td>
<td>${p.devolucoes?.length ? p.devolucoes.map((d) => html`<div>${brl(parseAmount(d.valor))} ${badge(d.status)}</div>`) : html`<span class="muted">nenhuma</span>`}</td></tr>`,
)}</tbody></table></div>`
    : empty(
        'Nenhum Pix recebido no período.',
        html`No sandbox, pague uma cobrança em <a href="/console/sandbox">Sandbox</a>.`,
      );
  const sentList = sent.pix.length
    ? html`<div class="scroll"><table><caption class="sr">Pix enviados</caption><thead><tr><th scope="col">Solicitação</th><th scope="col">idEnvio</th><th scope="col">Status</th><th scope="col" class="num">Valor</th></tr></thead><tbody>
${sent.pix.map((p) => html`<tr><td>${when(p.horario.solicitacao)}</td><td><code>${p.idEnvio}</code></td><td>${badge(p.status)}</td><td class="num">${brl(parseAmount(p.valor))}</td></tr>`)}
</tbody></table></div>`
    : empty('Nenhum Pix enviado no período.', html`Envie um com <code>PUT /v3/gn/pix/:idEnvio</code>.`);
  const infractionList = infractions.infracoes.length
    ? html`<ul class="cards">${infractions.infracoes.map(
        (i) =>
          html`<li>${badge(i.status)} ${brl(parseAmount(i.valor))} · <code>${i.endToEndId}</code> · ${i.tipoSituacao} · transação ${when(i.dataTransacao)}</li>`,
      )}</ul>`
    : empty('Nenhuma infração (MED) no período.');
  const pages = Math.max(
    received.parametros.paginacao.quantidadeDePaginas,
    sent.parametros.paginacao.quantidadeDePaginas,
  );
  const current = window['paginacao.paginaAtual'];
  const pageLink = (n: number) => `/console/pix?from=${fromDay}&to=${toDay}&page=${n}`;
  const pager =
    pages > 1
      ? html`<p class="pager">${current > 0 ? html`<a href="${pageLink(current - 1)}">← Anterior</a>` : html`<span></span>`}
<span>Página ${current + 1} de ${pages}</span>${current + 1 < pages ? html`<a href="${pageLink(current + 1)}" rel="next">Próxima →</a>` : html`<span></span>`}</p>`
      : '';
  return html`${form}
<section aria-labelledby="received"><h2 id="received">Recebidos (${received.parametros.paginacao.quantidadeTotalDeItens})</h2>${receivedList}</section>
<section aria-labelledby="sent"><h2 id="sent">Enviados (${sent.parametros.paginacao.quantidadeTotalDeItens})</h2>${sentList}</section>
<section aria-labelledby="med"><h2 id="med">Infrações</h2>${infractionList}</section>${pager}`;
}
