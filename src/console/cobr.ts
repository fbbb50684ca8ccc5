/**
 * Recurring charges (cobr, automatic Pix): the list and one charge's page, through `GET /v2/cobr`'s and
 * `GET /v2/cobr/:txid`'s services (`listCobrsView`, `readCobr`). The list pages as the API does (offset).
 */
import type { AppContext } from '../platform/context.ts';
import { parseAmount } from '../platform/money.ts';
import { LIMITS } from '../platform/limits.ts';
import { listCobrsView, readCobr } from '../pix/cobr/service.ts';
import { REC_ID_PATTERN } from '../pix/rec/schemas.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { badge, brl, empty, html, when, type Html } from './render.ts';

const DAY_MS = 86_400_000;
const STATUSES = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'] as const;
type CobrStatus = (typeof STATUSES)[number];
const WINDOW_DAYS = 90;

export async function cobrListPage(
  ctx: AppContext,
  caller: Caller,
  q: { page?: string; status?: string; doc?: string; idRec?: string },
  tabs: Html,
): Promise<Html> {
  const page = Math.max(0, Math.min(Number(q.page) || 0, 10_000));
  // What a person typed: only usable filters go to the API's list, the rest is dropped (never an error page).
  const status = (STATUSES as readonly string[]).includes(q.status ?? '') ? (q.status as CobrStatus) : undefined;
  const doc = q.doc?.replace(/\D/g, '');
  const idRec = new RegExp(REC_ID_PATTERN).test(q.idRec ?? '') ? q.idRec : undefined;
  const list = await listCobrsView(ctx.db, caller, {
    inicio: new Date(caller.now.getTime() - WINDOW_DAYS * DAY_MS).toISOString(),
    fim: new Date(caller.now.getTime() + DAY_MS).toISOString(),
    ...(status && { status }),
    ...(doc?.length === 11 && { cpf: doc }),
    ...(doc?.length === 14 && { cnpj: doc }),
    ...(idRec && { idRec }),
    'paginacao.paginaAtual': page,
    'paginacao.itensPorPagina': LIMITS.consolePageSize,
  });
  const filters = new URLSearchParams({ kind: 'cobr' });
  if (status) filters.set('status', status);
  if (doc) filters.set('doc', doc);
  if (idRec) filters.set('idRec', idRec);
  const pageLink = (n: number) => `/console/charges?${filters}&page=${n}`;
  const form = html`<form class="search" method="get" action="/console/charges" role="search">
<input type="hidden" name="kind" value="cobr">
<label>Status <select name="status"><option value="">todos</option>${STATUSES.map(
    (st) => html`<option${st === status ? html` selected` : ''}>${st}</option>`,
  )}</select></label>
<label>CPF/CNPJ do devedor <input name="doc" value="${q.doc ?? ''}" inputmode="numeric"></label>
<label>idRec <input name="idRec" value="${q.idRec ?? ''}" autocomplete="off"></label>
<button type="submit">Buscar</button></form>`;
  const { quantidadeDePaginas } = list.parametros.paginacao;
  const body = list.cobsr.length
    ? html`<div class="scroll"><table><caption class="sr">Cobranças recorrentes (cobr) dos últimos ${WINDOW_DAYS} dias</caption>
<thead><tr><th scope="col">Criada</th><th scope="col">txid</th><th scope="col">Vencimento</th><th scope="col">Status</th><th scope="col" class="num">Valor</th></tr></thead>
<tbody>${list.cobsr.map(
        (
          c,
        ) => html`<tr><td>${when(c.calendario.criacao)}</td><td><a href="/console/charges/cobr/${encodeURIComponent(c.txid)}"><code>${c.txid}</code></a></td>
<td>${c.calendario.dataDeVencimento}</td><td>${badge(c.status)}</td><td class="num">${brl(parseAmount(c.valor.original))}</td></tr>`,
      )}</tbody></table></div>
${quantidadeDePaginas > 1 ? html`<p class="pager">${page > 0 ? html`<a href="${pageLink(page - 1)}">← Anterior</a>` : html`<span></span>`}${page + 1 < quantidadeDePaginas ? html`<a href="${pageLink(page + 1)}" rel="next">Próxima →</a>` : ''}</p>` : ''}`
    : empty(
        status || doc || idRec
          ? 'Nenhuma cobrança recorrente corresponde a esta busca.'
          : `Nenhuma cobrança recorrente nos últimos ${WINDOW_DAYS} dias.`,
        html`Uma recorrência aprovada (<code>POST /v2/rec</code>) recebe cobranças com <code>PUT /v2/cobr/:txid</code>.`,
      );
  return html`${tabs}${form}${body}`;
}

export async function cobrDetailPage(ctx: AppContext, caller: Caller, txid: string): Promise<Html> {
  const c = await readCobr(ctx.db, caller, txid);
  return html`<section aria-labelledby="summary"><h2 id="summary">Resumo</h2>
<dl><dt>txid</dt><dd><code>${c.txid}</code></dd><dt>Tipo</dt><dd>cobr</dd><dt>Recorrência</dt><dd><code>${c.idRec}</code></dd>
<dt>Status</dt><dd>${badge(c.status)}</dd><dt>Valor</dt><dd>${brl(parseAmount(c.valor.original))}</dd>
<dt>Vencimento</dt><dd>${c.calendario.dataDeVencimento}</dd><dt>Criação</dt><dd>${when(c.calendario.criacao)}</dd>
<dt>Retentativa</dt><dd>${c.politicaRetentativa}</dd></dl></section>
<section aria-labelledby="history"><h2 id="history">Histórico</h2><ol>${c.atualizacao.map(
    (a) => html`<li>${badge(a.status)} ${when(a.data)}</li>`,
  )}</ol></section>
<section aria-labelledby="attempts"><h2 id="attempts">Tentativas de cobrança</h2>${
    c.tentativas.length
      ? html`<pre>${JSON.stringify(c.tentativas, null, 2)}</pre>`
      : empty('Nenhuma tentativa de liquidação ainda.')
  }</section>
<section aria-labelledby="pix-title"><h2 id="pix-title">Pix recebidos</h2>${
    c.pix?.length
      ? html`<ul class="cards">${c.pix.map((p) => html`<li><pre>${JSON.stringify(p, null, 2)}</pre></li>`)}</ul>`
      : empty('Nenhum Pix recebido por esta cobrança.')
  }</section>`;
}
