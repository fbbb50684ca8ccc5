/**
 * The payment link's page (`payment_url`): who is charging and what, the link's message, and either the choice
 * of method (with the delivery address when the link asks for it), the expiry notice, or the receipt once paid.
 * Server-rendered HTML that works without scripts; Portuguese, self-contained (platform/html.ts).
 */
import assert from 'node:assert/strict';
import type { Sql } from '../../platform/db/database.ts';
import { brasiliaDisplayDateTime, brazilianDate } from '../../platform/calendar.ts';
import { brl, escapeHtml, page } from '../../platform/html.ts';
import { findAccount } from '../../accounts/store.ts';
import { findCharge, type CardPaymentRecord, type ChargeRow } from '../charges/store.ts';
import { isExpired, linkByToken } from './service.ts';
import type { LinkRow } from './store.ts';
import { findBoleto, type BoletoRow } from '../boletos/store.ts';
import { formattedLine } from '../boletos/barcode.ts';
import { boletoLink, pixOf } from '../boletos/view.ts';

const PAID = ['approved', 'paid', 'partially_refunded', 'refunded'];

export interface LinkPageState {
  link: LinkRow;
  charge: ChargeRow;
  merchant: string;
  /** Once the payer chose boleto or Pix. */
  boleto: BoletoRow | undefined;
}

export async function linkPageState(sql: Sql, token: string): Promise<LinkPageState | undefined> {
  const link = await linkByToken(sql, token);
  if (!link) return undefined;
  const charge = (await findCharge(sql, { id: link.charge_id }))!;
  const account = await findAccount(sql, charge.account_id);
  assert.ok(account, `account of billing charge ${charge.id}`);
  return { link, charge, merchant: account.nome, boleto: await findBoleto(sql, { chargeId: charge.id }) };
}

const ADDRESS_FIELDS: [string, string, string][] = [
  ['zipcode', 'CEP (só números)', 'postal-code'],
  ['street', 'Rua', 'address-line1'],
  ['number', 'Número', 'off'],
  ['complement', 'Complemento (opcional)', 'address-line2'],
  ['neighborhood', 'Bairro', 'off'],
  ['city', 'Cidade', 'address-level2'],
  ['state', 'Estado (sigla, ex.: SP)', 'address-level1'],
];

function summary({ charge, link }: LinkPageState): string {
  const rows = charge.items
    .map(
      (i) =>
        `<tr><td>${i.amount ?? 1} × ${escapeHtml(i.name)}</td><td class="value">${brl(i.value * (i.amount ?? 1))}</td></tr>`,
    )
    .concat(
      charge.shippings.map(
        (s) => `<tr><td>Frete: ${escapeHtml(s.name)}</td><td class="value">${brl(s.value)}</td></tr>`,
      ),
    )
    .join('');
  return `<section class="card" aria-labelledby="summary-title"><h2 id="summary-title">Resumo da compra</h2>
<table>${rows}<tr class="total"><td>Total</td><td class="value" id="total">${brl(charge.total_cents)}</td></tr></table>
${link.message ? `<p class="muted" id="link-message">${escapeHtml(link.message)}</p>` : ''}</section>`;
}

function choice(state: LinkPageState, error: string | undefined, values: Record<string, string>): string {
  const { link } = state;
  const card = link.payment_method !== 'banking_billet';
  const billet = link.payment_method !== 'credit_card';
  const percent = (hundredths: number | null) =>
    hundredths ? ` (${(hundredths / 100).toLocaleString('pt-BR')}% de desconto)` : '';
  const option = (value: string, label: string, checked: boolean) =>
    `<label><input type="radio" name="method" value="${value}"${checked ? ' checked' : ''} style="width:auto"> ${label}</label>`;
  const payer = billet
    ? `<fieldset><legend>Pagador (para boleto ou Pix)</legend><label for="name">Nome completo</label><input id="name" name="name" autocomplete="name" value="${escapeHtml(values.name ?? '')}">
<label for="cpf">CPF (só números)</label><input id="cpf" name="cpf" inputmode="numeric" value="${escapeHtml(values.cpf ?? '')}"></fieldset>`
    : '';
  const address = link.request_delivery_address
    ? `<fieldset><legend>Endereço de entrega</legend>${ADDRESS_FIELDS.map(
        ([name, label, auto]) =>
          `<label for="${name}">${label}</label><input id="${name}" name="${name}" autocomplete="${auto}" value="${escapeHtml(values[name] ?? '')}"${name === 'complement' ? '' : ' required'}>`,
      ).join('')}</fieldset>`
    : '';
  const methods = `<fieldset><legend>Como você quer pagar?</legend>
${card ? option('credit_card', `Cartão de crédito${percent(link.card_discount)}`, true) : ''}
${billet ? option('banking_billet', `Boleto${percent(link.billet_discount)}`, !card) + option('pix', `Pix (QR Code)${percent(link.billet_discount)}`, false) : ''}</fieldset>${payer}`;
  return `<section class="card" aria-labelledby="pay-title"><h2 id="pay-title">Pagamento</h2>
<p class="muted">Pague até ${brazilianDate(link.expire_at)}.</p>
${error ? `<p class="status error" role="alert" id="link-error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/link/${link.token}/choose">${address}${methods}
<button type="submit">Continuar para o pagamento</button></form></section>`;
}

/** The boleto issued for the link: its linha digitável, PDF and Pix QR (the boleto's cobv). */
async function boletoSection(state: LinkPageState, boleto: BoletoRow, pagesUrl: string): Promise<string> {
  const pix = await pixOf(boleto);
  return `<section class="card" aria-labelledby="boleto-title"><h2 id="boleto-title">Boleto</h2>
<p class="muted">Vencimento: ${brazilianDate(boleto.due_date)} · ${brl(state.charge.total_cents)}</p>
<p><strong>Linha digitável</strong><br><code id="boleto-line">${formattedLine(boleto.barcode)}</code></p>
<p><a id="boleto-pdf" href="${boletoLink({ pagesUrl }, boleto)}.pdf">Baixar o boleto (PDF)</a></p>
${
  pix
    ? `<h2 id="pix">Pix</h2><img id="pix-qr" src="${pix.qrcode_image}" alt="QR Code Pix do boleto" width="220" height="220">
<p><strong>Pix copia e cola</strong><br><code id="pix-code">${escapeHtml(pix.qrcode)}</code></p>`
    : '<p class="muted" id="pix">Esta conta não tem chave Pix: pague pelo boleto.</p>'
}</section>`;
}

function receipt({ charge }: LinkPageState): string {
  const p = charge.payment as CardPaymentRecord;
  const paidWith =
    p.method === 'credit_card'
      ? `<dt>Cartão</dt><dd>${escapeHtml(p.brand)} final ${escapeHtml(p.card_mask.slice(-4))}</dd>`
      : '<dt>Forma</dt><dd>Boleto ou Pix</dd>';
  return `<section class="card" aria-labelledby="receipt-title"><p class="status ok" role="status" id="receipt-status">Pagamento aprovado</p>
<h2 id="receipt-title">Comprovante</h2><dl>
<dt>Pedido</dt><dd>${charge.id}</dd><dt>Total</dt><dd>${brl(charge.total_cents)}</dd>
${paidWith}
<dt>Data</dt><dd>${brasiliaDisplayDateTime(charge.approved_at ?? charge.paid_at!)}</dd></dl></section>`;
}

function notice(text: string, kind: 'info' | 'error'): string {
  return `<section class="card"><p class="status ${kind}" role="status">${escapeHtml(text)}</p></section>`;
}

/** The page for the link's current state; after a refused choice, the error and what the payer typed. */
export async function linkPage(
  state: LinkPageState,
  now: Date,
  pagesUrl: string,
  refused?: { error: string; values: Record<string, string> },
): Promise<string> {
  const { charge, link, merchant, boleto } = state;
  let body: string;
  if (PAID.includes(charge.status)) body = receipt(state);
  else if (boleto && ['waiting', 'unpaid'].includes(charge.status)) body = await boletoSection(state, boleto, pagesUrl);
  else if (charge.status === 'canceled')
    body = notice('Esta cobrança foi cancelada. Nenhum valor foi cobrado.', 'info');
  else if (charge.status !== 'link')
    body = notice('O pagamento já foi iniciado. Acompanhe pela página do cartão ou aguarde a confirmação.', 'info');
  else if (isExpired(link, now))
    body = notice(`Este link expirou em ${brazilianDate(link.expire_at)}. Nenhum pagamento foi feito.`, 'error');
  else body = choice(state, refused?.error, refused?.values ?? {});
  return page({
    title: `Pagamento para ${merchant}`,
    style: 'fieldset{border:0;padding:0;margin:1rem 0 0}legend{font-weight:700;margin-bottom:.25rem}',
    body: `<header class="merchant"><p class="label">Pagamento para</p><h1>${escapeHtml(merchant)}</h1></header>
${summary(state)}
${body}`,
  });
}
