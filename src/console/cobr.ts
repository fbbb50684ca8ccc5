/**
 * Recurring charges (cobr, automatic Pix): the list, a keyset page newest first read in console/store.ts
 * (the API's `GET /v2/cobr` pages by offset, dearer the deeper it goes), with its filters (status, debtor,
 * idRec) and txid; and one charge's page through `GET /v2/cobr/:txid`'s service (`readCobr`), its received
 * Pix each through `GET /v2/pix/:e2eid`'s (`readPix`: payer and refunds, which the cobr's own view lacks).
 */
import type { AppContext } from '../platform/context.ts';
import { parseAmount } from '../platform/money.ts';
import { LIMITS } from '../platform/limits.ts';
import { readCobr } from '../pix/cobr/service.ts';
import type { CobrCompleta } from '../pix/cobr/schemas.ts';
import { readPix } from '../pix/received/service.ts';
import { REC_ID_PATTERN } from '../pix/rec/schemas.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { badge, brl, empty, html, when, type Html } from './render.ts';
import { cobrPage, type CobrSearch } from './store.ts';
import { cursorOf, cursorText, olderLink, pager } from './paging.ts';
import { receivedPix, type PixShown } from './received.ts';
import { deliveryTable } from './webhooks.ts';
import type { Session } from './session.ts';
import { recentDeliveries } from '../platform/webhooks/inspection.ts';
import { WEBHOOK_TOPICS, accountEventOrderingKey } from '../pix/webhook/events.ts';

const STATUSES = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'];

export async function cobrListPage(
  ctx: AppContext,
  caller: Caller,
  q: { txid?: string; status?: string; doc?: string; idRec?: string; before?: string },
  tabs: Html,
): Promise<Html> {
  // What a person typed: only usable filters are applied, the rest is dropped (never an error page).
  const search: CobrSearch = {
    txid: q.txid?.trim() || undefined,
    status: STATUSES.includes(q.status ?? '') ? q.status : undefined,
    document: q.doc?.replace(/\D/g, '') || undefined,
    idRec: new RegExp(REC_ID_PATTERN).test(q.idRec ?? '') ? q.idRec : undefined,
    before: cursorOf(q.before),
  };
  const { rows, more } = await cobrPage(ctx.db, caller.accountId, search, LIMITS.consolePageSize);
  const filters = new URLSearchParams({ kind: 'cobr' });
  for (const [name, value] of [
    ['txid', search.txid],
    ['status', search.status],
    ['doc', search.document],
    ['idRec', search.idRec],
  ] as const)
    if (value) filters.set(name, value);
  const older = olderLink(
    { rows, more },
    (last) => `/console/charges?${filters}&before=${cursorText(last.created_at, last.id)}`,
  );
  const form = html`<form class="search" method="get" action="/console/charges" role="search">
<input type="hidden" name="kind" value="cobr">
<label>txid <input name="txid" value="${q.txid ?? ''}" autocomplete="off"></label>
<label>Status <select name="status"><option value="">todos</option>${STATUSES.map(
    (st) => html`<option${st === search.status ? html` selected` : ''}>${st}</option>`,
  )}</select></label>
<label>CPF/CNPJ do devedor <input name="doc" value="${q.doc ?? ''}" inputmode="numeric"></label>
<label>idRec <input name="idRec" value="${q.idRec ?? ''}" autocomplete="off"></label>
<button type="submit">Buscar</button></form>`;
  const filtered = Boolean(search.txid || search.status || search.document || search.idRec || search.before);
  const body = rows.length
    ? html`<div class="scroll"><table><caption class="sr">Cobranças recorrentes (cobr), mais recentes primeiro</caption>
<thead><tr><th scope="col">Criada</th><th scope="col">txid</th><th scope="col">Vencimento</th><th scope="col">Status</th><th scope="col" class="num">Valor</th></tr></thead>
<tbody>${rows.map(
        (
          c,
        ) => html`<tr><td>${when(c.created_at)}</td><td><a href="/console/charges/cobr/${encodeURIComponent(c.txid)}"><code>${c.txid}</code></a></td>
<td>${c.due_date}</td><td>${badge(c.status)}</td><td class="num">${brl(c.amount_cents)}</td></tr>`,
      )}</tbody></table></div>
${pager(search.before && `/console/charges?${filters}`, older)}`
    : empty(
        filtered
          ? 'Nenhuma cobrança recorrente corresponde a esta busca.'
          : 'Nenhuma cobrança recorrente nesta conta ainda.',
        html`Uma recorrência aprovada (<code>POST /v2/rec</code>) recebe cobranças com <code>PUT /v2/cobr/:txid</code>.`,
      );
  return html`${tabs}${form}${body}`;
}

/** What each kind of settlement attempt is (Bacen's `tipo`). */
const ATTEMPT_KINDS: Record<string, string> = {
  AGND: 'agendada',
  NTAG: 'fora do agendamento',
  RIFL: 'retentativa',
};

/** A cobr's settlement attempts: one row each, with every status it went through. */
function attemptTable(tentativas: CobrCompleta['tentativas']): Html {
  if (!tentativas.length) return empty('Nenhuma tentativa de liquidação ainda.');
  return html`<div class="scroll"><table><caption class="sr">Tentativas de liquidação, na ordem em que foram pedidas</caption>
<thead><tr><th scope="col">Liquidação</th><th scope="col">Tipo</th><th scope="col">Status</th><th scope="col">endToEndId</th><th scope="col">Histórico</th><th scope="col">Rejeição</th></tr></thead>
<tbody>${tentativas.map(
    (
      t,
    ) => html`<tr><td>${t.dataLiquidacao}</td><td>${ATTEMPT_KINDS[t.tipo] ?? t.tipo} <span class="muted">${t.tipo}</span></td>
<td>${badge(t.status)}</td><td><code>${t.endToEndId}</code></td>
<td>${t.atualizacao.map((a) => html`<div>${badge(a.status)} ${when(a.data)}</div>`)}</td>
<td>${t.rejeicao ? html`<code>${t.rejeicao.codigo}</code> ${t.rejeicao.descricao}` : html`<span class="muted">—</span>`}</td></tr>`,
  )}</tbody></table></div>`;
}

export async function cobrDetailPage(ctx: AppContext, caller: Caller, session: Session, txid: string): Promise<Html> {
  const c = await readCobr(ctx.db, caller, txid);
  // The cobr webhook's events of this charge: every one carries its txid as ordering key.
  const deliveries = await recentDeliveries(
    ctx.db,
    caller.accountId,
    [WEBHOOK_TOPICS.cobr.name],
    LIMITS.consoleDeliveriesShown,
    { orderingKey: accountEventOrderingKey('cobr', caller.accountId, c.txid), withEvent: true },
  );
  const pix: PixShown[] = [];
  for (const p of c.pix ?? []) pix.push((await readPix(ctx.db, caller, p.endToEndId)) as PixShown);
  // Creation, due and settlement dates are days in Brasília (the standard's), not instants: shown as they are,
  // never moved into the browser's zone.
  return html`<section aria-labelledby="summary"><h2 id="summary">Resumo</h2>
<dl><dt>txid</dt><dd><code>${c.txid}</code></dd><dt>Tipo</dt><dd>cobr</dd><dt>Recorrência</dt><dd><code>${c.idRec}</code></dd>
<dt>Status</dt><dd>${badge(c.status)}</dd><dt>Valor</dt><dd>${brl(parseAmount(c.valor.original))}</dd>
<dt>Vencimento</dt><dd>${c.calendario.dataDeVencimento}</dd><dt>Criação</dt><dd>${c.calendario.criacao}</dd>
<dt>Devedor</dt><dd>${c.devedor?.nome ?? '—'} ${c.devedor?.cpf ?? c.devedor?.cnpj ?? ''}</dd>
<dt>Retentativa</dt><dd>${c.politicaRetentativa}</dd></dl></section>
<section aria-labelledby="history"><h2 id="history">Histórico</h2><ol>${c.atualizacao.map(
    (a) => html`<li>${badge(a.status)} ${when(a.data)}</li>`,
  )}</ol></section>
<section aria-labelledby="attempts"><h2 id="attempts">Tentativas de liquidação</h2>${attemptTable(c.tentativas)}</section>
<section aria-labelledby="pix-title"><h2 id="pix-title">Pix recebidos</h2>${receivedPix(pix)}</section>
<section aria-labelledby="wh-title"><h2 id="wh-title">Entregas de webhook</h2>${deliveryTable(
    { ...caller, session },
    deliveries,
    html`Cadastre o webhook de cobranças recorrentes com <code>PUT /v2/webhookcobr</code>; cada mudança desta cobrança gera uma entrega.`,
  )}</section>`;
}
