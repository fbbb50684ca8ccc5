/**
 * Charges: the list (search by txid, status, creation date, payer document; keyset pages, newest first)
 * and one charge's page. The charge is read through the same services as `GET /v2/cob/:txid` and
 * `GET /v2/gn/split/...`, for the session's current account only: another account's txid is not found.
 */
import type { AppContext } from '../platform/context.ts';
import { parseAmount } from '../platform/money.ts';
import { LIMITS } from '../platform/limits.ts';
import { readSplitCob, readSplitCobV } from '../pix/split/links.ts';
import { distributionOfPix } from '../pix/split/store.ts';
import { readCob } from '../pix/cob/service.ts';
import { readCobV } from '../pix/cobv/service.ts';
import { qrImageDataUrl } from '../pix/qrcodes/image.ts';
import { WEBHOOK_TOPICS } from '../pix/webhook/events.ts';
import { recentDeliveries } from '../platform/webhooks/inspection.ts';
import type { Caller } from '../pix/shared/caller.ts';
import type { TipoCob } from '../pix/loc/store.ts';
import { chargePage, type ChargeSearch } from './store.ts';
import { badge, brl, empty, html, when, type Html } from './render.ts';
import { deliveryTable } from './webhooks.ts';
import { receivedPix, type PixShown, type Shares } from './received.ts';
import { cobrListPage } from './cobr.ts';
import { CARD_KIND, cardListPage } from './card.ts';
import { LINK_KIND, SUBSCRIPTION_KIND, linkListPage, subscriptionListPage } from './subscriptions.ts';
import type { Session } from './session.ts';
import { cursorOf, cursorText, olderLink, pager } from './paging.ts';

const CHARGE_KINDS: TipoCob[] = ['cob', 'cobv'];
const STATUSES = ['ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP'];

export interface ChargeQuery {
  kind?: string;
  txid?: string;
  status?: string;
  from?: string;
  to?: string;
  doc?: string;
  before?: string;
}

const DAY_MS = 86_400_000;

/** The query string as typed by a person: anything unusable is dropped, never an error page. */
function searchOf(q: ChargeQuery): ChargeSearch {
  const date = (text: string | undefined, plusDays = 0) => {
    if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
    const at = new Date(`${text}T00:00:00Z`);
    return Number.isNaN(at.getTime()) ? undefined : new Date(at.getTime() + plusDays * DAY_MS);
  };
  const document = q.doc?.replace(/\D/g, '');
  return {
    kind: (CHARGE_KINDS as string[]).includes(q.kind ?? '') ? (q.kind as TipoCob) : 'cob',
    txid: q.txid?.trim() || undefined,
    status: STATUSES.includes(q.status ?? '') ? q.status : undefined,
    from: date(q.from),
    to: date(q.to, 1),
    document: document || undefined,
    before: cursorOf(q.before),
  };
}

function link(search: ChargeSearch, q: ChargeQuery, before?: string): string {
  const params = new URLSearchParams();
  params.set('kind', search.kind);
  for (const name of ['txid', 'status', 'from', 'to', 'doc'] as const) if (q[name]) params.set(name, q[name]!);
  if (before) params.set('before', before);
  return `/console/charges?${params}`;
}

/** The list tabs: the two kinds with a QR Code, then recurring (console/cobr.ts) and card charges (console/card.ts). */
function kindTabs(current: string): Html {
  return html`<nav class="tabs" aria-label="Tipo de cobrança">${[
    ...CHARGE_KINDS,
    'cobr',
    CARD_KIND,
    SUBSCRIPTION_KIND,
    LINK_KIND,
  ].map(
    (kind) =>
      html`<a href="/console/charges?kind=${kind}"${kind === current ? html` aria-current="page"` : ''}>${kind}</a>`,
  )}</nav>`;
}

export async function chargeListPage(
  ctx: AppContext,
  caller: Caller,
  q: ChargeQuery & { idRec?: string },
): Promise<Html> {
  if (q.kind === 'cobr') return cobrListPage(ctx, caller, q, kindTabs('cobr'));
  if (q.kind === CARD_KIND) return cardListPage(ctx, caller, q, kindTabs(CARD_KIND));
  if (q.kind === SUBSCRIPTION_KIND) return subscriptionListPage(ctx, caller, kindTabs(SUBSCRIPTION_KIND));
  if (q.kind === LINK_KIND) return linkListPage(ctx, caller, kindTabs(LINK_KIND));
  const search = searchOf(q);
  const { rows, more } = await chargePage(ctx.db, caller.accountId, search, LIMITS.consolePageSize);
  const next = olderLink({ rows, more }, (last) => link(search, q, cursorText(last.created_at, last.id)));
  const filtered = Boolean(
    search.txid || search.status || search.from || search.to || search.document || search.before,
  );
  const tabs = kindTabs(search.kind);
  const form = html`<form class="search" method="get" action="/console/charges" role="search">
  <input type="hidden" name="kind" value="${search.kind}">
  <label>txid <input name="txid" value="${q.txid ?? ''}" autocomplete="off"></label>
  <label>Status <select name="status"><option value="">todos</option>${STATUSES.map(
    (s) => html`<option${s === search.status ? html` selected` : ''}>${s}</option>`,
  )}</select></label>
  <label>De <input type="date" name="from" value="${q.from ?? ''}"></label>
  <label>Até <input type="date" name="to" value="${q.to ?? ''}"></label>
  <label>CPF/CNPJ do pagador <input name="doc" value="${q.doc ?? ''}" inputmode="numeric"></label>
  <button type="submit">Buscar</button></form>`;
  const table = rows.length
    ? html`<div class="scroll"><table><caption class="sr">Cobranças ${search.kind}, mais recentes primeiro</caption>
<thead><tr><th scope="col">Criada</th><th scope="col">txid</th><th scope="col">Status</th><th scope="col" class="num">Valor</th><th scope="col">Pagador</th></tr></thead>
<tbody>${rows.map(
        (r) => html`<tr><td>${when(r.created_at)}</td>
<td><a href="/console/charges/${r.kind}/${encodeURIComponent(r.txid)}"><code>${r.txid}</code></a></td>
<td>${badge(r.status)}</td><td class="num">${brl(r.amount_cents)}</td>
<td>${r.pagador_nome ?? ''}${r.pagador_documento ? html` <span class="muted">${r.pagador_documento}</span>` : ''}</td></tr>`,
      )}</tbody></table></div>
${pager(search.before && link(search, q), next)}`
    : filtered
      ? empty(
          'Nenhuma cobrança corresponde a esta busca.',
          html`<a href="/console/charges?kind=${search.kind}">Limpar a busca</a>`,
        )
      : empty(
          `Nenhuma cobrança ${search.kind} nesta conta ainda.`,
          html`Crie uma com <code>PUT /v2/${search.kind}/:txid</code> (veja a <a href="/docs">referência da API</a>); ela aparece aqui sozinha.`,
        );
  return html`${tabs}${form}${table}`;
}

export async function chargeDetailPage(
  ctx: AppContext,
  caller: Caller,
  session: Session,
  kind: TipoCob,
  txid: string,
): Promise<Html> {
  // Throws the API's own 404 (CobNaoEncontrado) when the txid is not the current account's.
  const view = (
    kind === 'cob' ? await readSplitCob(ctx.db, caller, txid) : await readSplitCobV(ctx.db, caller, txid)
  ) as {
    revisao: number;
    status: string;
    valor: { original: string };
    pixCopiaECola?: string;
    calendario: Record<string, unknown>;
    devedor?: { nome?: string; cpf?: string; cnpj?: string };
    pix?: PixShown[];
    config?: { id: string; revisao: number; descricao?: string };
  };
  const readRevision = kind === 'cob' ? readCob : readCobV;
  const revisions: { revisao: number; status: string; valor: { original: string } }[] = [];
  for (let revisao = 0; revisao <= view.revisao; revisao++)
    revisions.push((await readRevision(ctx.db, caller, txid, revisao)) as (typeof revisions)[number]);
  const shares: Shares = new Map();
  for (const p of view.pix ?? [])
    shares.set(p.endToEndId, await distributionOfPix(ctx.db, caller.accountId, p.endToEndId));
  const deliveries = await recentDeliveries(
    ctx.db,
    caller.accountId,
    [WEBHOOK_TOPICS.pix.name, WEBHOOK_TOPICS.pixResend.name],
    LIMITS.consoleDeliveriesShown,
    { payload: { field: 'txid', value: txid }, withEvent: true },
  );
  const qr = view.pixCopiaECola
    ? html`<figure class="qr"><img src="${await qrImageDataUrl(view.pixCopiaECola)}" width="220" height="220" alt="QR Code da cobrança ${txid}">
<figcaption><label for="brcode">Pix Copia e Cola</label>
<textarea id="brcode" readonly rows="4">${view.pixCopiaECola}</textarea>
<button type="button" data-copy="brcode">Copiar código</button></figcaption></figure>`
    : empty('Esta cobrança não tem QR Code (sem location).');
  return html`<div class="grid">
<section aria-labelledby="summary"><h2 id="summary">Resumo</h2>
<dl><dt>txid</dt><dd><code>${txid}</code></dd><dt>Tipo</dt><dd>${kind}</dd><dt>Status</dt><dd>${badge(view.status)}</dd>
<dt>Valor</dt><dd>${brl(parseAmount(view.valor.original))}</dd>
<dt>Criação</dt><dd>${when(String(view.calendario.criacao))}</dd>
<dt>Devedor</dt><dd>${view.devedor?.nome ?? '—'} ${view.devedor?.cpf ?? view.devedor?.cnpj ?? ''}</dd>
<dt>Split</dt><dd>${view.config ? html`configuração <code>${view.config.id}</code> (revisão ${view.config.revisao})` : 'sem split'}</dd></dl></section>
<section aria-labelledby="qr-title"><h2 id="qr-title">QR Code</h2>${qr}</section></div>
<section aria-labelledby="revisions"><h2 id="revisions">Revisões</h2><ol start="0">${revisions.map(
    (r) =>
      html`<li>revisão ${r.revisao}: ${badge(r.status)} ${brl(parseAmount(r.valor.original))}${r.revisao === view.revisao ? ' (atual)' : ''}</li>`,
  )}</ol></section>
<section aria-labelledby="pix-title"><h2 id="pix-title">Pix recebidos</h2>${receivedPix(view.pix, shares)}</section>
<section aria-labelledby="wh-title"><h2 id="wh-title">Entregas de webhook</h2>${deliveryTable({ ...caller, session }, deliveries)}</section>`;
}
