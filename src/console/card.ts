/**
 * Card billing charges: a keyset list (newest first) and one charge's page through `GET /v1/charge/:id`'s
 * service (`chargeDetail`), with its history, payment, refunds and its notifications to the
 * notification URL (each delivery with its attempts).
 */
import type { AppContext } from '../platform/context.ts';
import { LIMITS } from '../platform/limits.ts';
import { recentDeliveries } from '../platform/webhooks/inspection.ts';
import { chargePageBefore, findCharge, type ChargeRow } from '../billing/charges/store.ts';
import { chargeDetail } from '../billing/charges/service.ts';
import { NOTIFICATION_TOPIC } from '../billing/notifications/delivery.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { badge, brl, empty, html, when, type Html } from './render.ts';
import { deliveryTable } from './webhooks.ts';
import { olderLink, pager } from './paging.ts';

export const CARD_KIND = 'cartao';

/** Card, boleto, or a carnê's parcel (the carnê's number and the parcel's). */
function methodOf(c: ChargeRow): string {
  if (c.carnet_id !== null) return `carnê ${c.carnet_id} · parcela ${c.parcel}`;
  if (c.payment?.method === 'banking_billet') return 'boleto';
  return c.payment ? 'cartão' : '—';
}

export async function cardListPage(ctx: AppContext, caller: Caller, q: { before?: string }, tabs: Html): Promise<Html> {
  const before = /^\d{1,18}$/.test(q.before ?? '') ? Number(q.before) : undefined;
  const { rows, more } = await chargePageBefore(ctx.db, caller.accountId, before, LIMITS.consolePageSize);
  const older = olderLink({ rows, more }, (last) => `/console/charges?kind=${CARD_KIND}&before=${last.id}`);
  const body = rows.length
    ? html`<div class="scroll"><table><caption class="sr">Cobranças de cartão, mais recentes primeiro</caption>
<thead><tr><th scope="col">Criada</th><th scope="col">charge_id</th><th scope="col">Forma</th><th scope="col">Status</th><th scope="col" class="num">Total</th><th scope="col">custom_id</th></tr></thead>
<tbody>${rows.map(
        (
          c,
        ) => html`<tr><td>${when(c.created_at)}</td><td><a href="/console/charges/${CARD_KIND}/${c.id}">${c.id}</a></td>
<td>${methodOf(c)}</td><td>${badge(c.status)}</td><td class="num">${brl(Number(c.total_cents))}</td><td>${c.custom_id ?? ''}</td></tr>`,
      )}</tbody></table></div>
${pager(before ? `/console/charges?kind=${CARD_KIND}` : undefined, older)}`
    : empty(
        'Nenhuma cobrança de cartão, boleto ou carnê nesta conta.',
        html`Crie uma com <code>POST /v1/charge</code> (docs/billing.md).`,
      );
  return html`${tabs}${body}`;
}

type Detail = Awaited<ReturnType<typeof chargeDetail>>;

function paymentText(c: Detail): string {
  const p = c.payment;
  if (!p) return '—';
  if ('credit_card' in p && p.credit_card)
    return `${p.credit_card.brand} ${p.credit_card.mask} em ${p.credit_card.installments}x`;
  return 'carnet' in p && p.carnet ? `carnê, parcela ${p.carnet.parcel}` : 'boleto';
}

/** A boleto's (or carnê parcel's) barcode, linha digitável, PDF and Pix QR: what its payer is handed. */
function boletoSection(c: Detail): Html | string {
  const p = c.payment;
  const b = p && ('banking_billet' in p ? p.banking_billet : 'carnet' in p ? p.carnet : undefined);
  if (!b) return '';
  return html`<section aria-labelledby="boleto"><h2 id="boleto">Boleto</h2>
<dl><dt>Vencimento</dt><dd>${b.expire_at}</dd><dt>Linha digitável</dt><dd><code>${b.barcode}</code></dd>
<dt>Código de barras</dt><dd><code>${b.barcode_digits}</code></dd>
<dt>PDF</dt><dd><a href="${b.pdf.charge}">${b.pdf.charge}</a></dd>
<dt>Pix</dt><dd>${b.pix ? html`<img src="${b.pix.qrcode_image}" alt="QR Code Pix do boleto" width="160" height="160"><br><code>${b.pix.qrcode}</code>` : 'sem QR (a conta não tinha chave Pix)'}</dd></dl></section>`;
}

export async function cardDetailPage(ctx: AppContext, caller: Caller, id: string): Promise<Html> {
  // Not a number, or another account's: the API's own 404.
  const c = await chargeDetail(ctx.db, { ...caller, pagesUrl: ctx.pages.url }, /^\d{1,18}$/.test(id) ? Number(id) : 0);
  // A carnê's parcel is notified through its carnê's token: its deliveries are the carnê's.
  const carnetId = (await findCharge(ctx.db, { id: c.charge_id }))?.carnet_id ?? null;
  const deliveries = await recentDeliveries(
    ctx.db,
    caller.accountId,
    [NOTIFICATION_TOPIC.name],
    LIMITS.consoleDeliveriesShown,
    {
      payload: { field: 'chargeId', value: String(carnetId ?? c.charge_id) },
      withEvent: true,
    },
  );
  return html`<section aria-labelledby="summary"><h2 id="summary">Resumo</h2>
<dl><dt>charge_id</dt><dd>${c.charge_id}</dd><dt>Status</dt><dd>${badge(c.status)}${c.reason ? html` <span class="muted">${c.reason}</span>` : ''}</dd>
<dt>Total</dt><dd>${brl(c.total)}</dd><dt>Criada</dt><dd>${c.created_at} (Brasília)</dd>
<dt>Pagamento</dt><dd>${paymentText(c)}</dd>
${'refunded' in c ? html`<dt>Devolvido</dt><dd>${brl(c.refunded ?? 0)}</dd>` : ''}<dt>URL de notificação</dt><dd>${c.notification_url ? html`<code>${c.notification_url}</code>` : 'nenhuma'}</dd></dl></section>
${boletoSection(c)}
<section aria-labelledby="items"><h2 id="items">Itens</h2><ul>${(
    c.items as { name: string; value: number; amount?: number }[]
  ).map((i) => html`<li>${i.amount ?? 1} × ${i.name} · ${brl(i.value)}</li>`)}</ul></section>
<section aria-labelledby="history"><h2 id="history">Histórico</h2><ol>${c.history.map((h) => html`<li>${h.created_at} · ${h.message}</li>`)}</ol></section>
<section aria-labelledby="notif"><h2 id="notif">Notificações${carnetId === null ? '' : ` (do carnê ${carnetId})`}</h2>${
    deliveries.length
      ? deliveryTable(caller, deliveries)
      : empty(
          'Nenhuma notificação enviada.',
          html`Informe <code>notification_url</code> em <code>metadata</code> da cobrança.`,
        )
  }</section>`;
}
