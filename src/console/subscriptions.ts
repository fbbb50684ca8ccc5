/**
 * Plans, subscriptions with their renewals, and payment links (docs/billing.md): two tabs of the charges list
 * and a subscription's page, through the billing services the API uses (`plansOf`, `subscriptionDetail`).
 */
import type { AppContext } from '../platform/context.ts';
import { LIMITS } from '../platform/limits.ts';
import { plansOf } from '../billing/plans/service.ts';
import { subscriptionsOf } from '../billing/subscriptions/store.ts';
import { subscriptionDetail } from '../billing/subscriptions/service.ts';
import { grossTotal } from '../billing/charges/payment.ts';
import { linksOf } from '../billing/links/store.ts';
import { paymentUrl } from '../billing/links/service.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { badge, brl, empty, html, when, type Html } from './render.ts';
import { CARD_KIND } from './card.ts';

export const SUBSCRIPTION_KIND = 'assinatura';
export const LINK_KIND = 'link';

export async function subscriptionListPage(ctx: AppContext, caller: Caller, tabs: Html): Promise<Html> {
  const [plans, subscriptions] = await Promise.all([
    plansOf(ctx.db, caller.accountId, { limit: LIMITS.consolePageSize }),
    subscriptionsOf(ctx.db, caller.accountId, LIMITS.consolePageSize),
  ]);
  const planNames = new Map(plans.map((p) => [p.id, p.name]));
  const planTable = plans.length
    ? html`<div class="scroll"><table><caption class="sr">Planos</caption>
<thead><tr><th scope="col">plan_id</th><th scope="col">Nome</th><th scope="col" class="num">Intervalo (meses)</th><th scope="col" class="num">Cobranças</th><th scope="col">Criado</th></tr></thead>
<tbody>${plans.map(
        (p) => html`<tr><td>${p.id}</td><td>${p.name}</td><td class="num">${p.interval_months}</td>
<td class="num">${p.repeats ?? 'até cancelar'}</td><td>${when(p.created_at)}</td></tr>`,
      )}</tbody></table></div>`
    : empty('Nenhum plano nesta conta.', html`Crie um com <code>POST /v1/plan</code>.`);
  const subscriptionTable = subscriptions.length
    ? html`<div class="scroll"><table><caption class="sr">Assinaturas, mais recentes primeiro</caption>
<thead><tr><th scope="col">subscription_id</th><th scope="col">Plano</th><th scope="col">Status</th><th scope="col" class="num">Valor</th><th scope="col" class="num">Cobranças feitas</th><th scope="col">Próxima</th></tr></thead>
<tbody>${subscriptions.map(
        (s) => html`<tr><td><a href="/console/charges/${SUBSCRIPTION_KIND}/${s.id}">${s.id}</a></td>
<td>${planNames.get(s.plan_id) ?? `#${s.plan_id}`}</td><td>${badge(s.status)}</td><td class="num">${brl(grossTotal(s))}</td>
<td class="num">${s.occurrences}</td><td>${s.next_execution ?? '—'}</td></tr>`,
      )}</tbody></table></div>`
    : empty('Nenhuma assinatura nesta conta.', html`Crie uma com <code>POST /v1/plan/:id/subscription</code>.`);
  return html`${tabs}<section aria-labelledby="plans"><h2 id="plans">Planos</h2>${planTable}</section>
<section aria-labelledby="subs"><h2 id="subs">Assinaturas</h2>${subscriptionTable}</section>`;
}

export async function subscriptionDetailPage(ctx: AppContext, caller: Caller, id: string): Promise<Html> {
  const s = await subscriptionDetail(
    ctx.db,
    { ...caller, pagesUrl: ctx.pages.url },
    /^\d{1,18}$/.test(id) ? Number(id) : 0,
  );
  const charges = s.history.flatMap((h) => ('charge_id' in h ? [h] : []));
  const events = s.history.flatMap((h) => ('message' in h ? [h] : []));
  return html`<section aria-labelledby="summary"><h2 id="summary">Resumo</h2>
<dl><dt>subscription_id</dt><dd>${s.subscription_id}</dd><dt>Status</dt><dd>${badge(s.status)}</dd>
<dt>Plano</dt><dd>${s.plan.name} (a cada ${s.plan.interval} ${s.plan.interval === 1 ? 'mês' : 'meses'}, ${s.plan.repeats ?? 'até cancelar'})</dd>
<dt>Valor</dt><dd>${brl(s.value)}</dd><dt>Cobranças feitas</dt><dd>${s.occurrences}</dd>
<dt>Próxima renovação</dt><dd>${s.next_execution ?? '—'}</dd><dt>Criada</dt><dd>${s.created_at} (Brasília)</dd></dl></section>
<section aria-labelledby="renewals"><h2 id="renewals">Cobranças e renovações</h2><div class="scroll"><table>
<thead><tr><th scope="col" class="num">Parcela</th><th scope="col">charge_id</th><th scope="col">Status</th><th scope="col">Criada</th></tr></thead>
<tbody>${charges.map(
    (
      c,
    ) => html`<tr><td class="num">${c.parcel}</td><td><a href="/console/charges/${CARD_KIND}/${c.charge_id}">${c.charge_id}</a></td>
<td>${badge(c.status)}</td><td>${c.created_at}</td></tr>`,
  )}</tbody></table></div></section>
<section aria-labelledby="history"><h2 id="history">Histórico</h2><ol>${events.map((h) => html`<li>${h.created_at} · ${h.message}</li>`)}</ol></section>`;
}

export async function linkListPage(ctx: AppContext, caller: Caller, tabs: Html): Promise<Html> {
  const links = await linksOf(ctx.db, caller.accountId, LIMITS.consolePageSize);
  const body = links.length
    ? html`<div class="scroll"><table><caption class="sr">Links de pagamento, mais recentes primeiro</caption>
<thead><tr><th scope="col">charge_id</th><th scope="col">Status</th><th scope="col" class="num">Total</th><th scope="col">Formas</th><th scope="col">Expira</th><th scope="col">payment_url</th></tr></thead>
<tbody>${links.map(
        (
          l,
        ) => html`<tr><td><a href="/console/charges/${CARD_KIND}/${l.charge_id}">${l.charge_id}</a></td><td>${badge(l.status)}</td>
<td class="num">${brl(Number(l.total_cents))}</td><td>${l.payment_method}</td><td>${l.expire_at}</td>
<td><a href="${paymentUrl(ctx.pages.url, l)}">abrir</a></td></tr>`,
      )}</tbody></table></div>`
    : empty('Nenhum link de pagamento nesta conta.', html`Crie um com <code>POST /v1/charge/one-step/link</code>.`);
  return html`${tabs}${body}`;
}
