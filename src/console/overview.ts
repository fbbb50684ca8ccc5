/**
 * Overview: balance and blocks (the ledger, as `GET /v2/gn/saldo?bloqueios=true`), today's received and sent
 * amounts, received Pix per hour (24 h) and per day (30 days) as inline SVG, webhook success rate, recent errors.
 */
import type { AppContext } from '../platform/context.ts';
import { balanceCents, ledgerCode } from '../platform/ledger/ledger.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { deliveryHealth, receivedPerBucket, sumsSince } from './store.ts';
import { brl, empty, html, when, type Html } from './render.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const ERRORS_SHOWN = 5;

/** The starts of `count` buckets of `stepMs` (UTC-aligned), the last one holding `end`. */
function bucketStarts(end: Date, count: number, stepMs: number): Date[] {
  const first = Math.floor(end.getTime() / stepMs) * stepMs - (count - 1) * stepMs;
  return Array.from({ length: count }, (_, i) => new Date(first + i * stepMs));
}

/** Bars for the buckets summed (receivedPerBucket); zero where nothing was received. */
function chart(title: string, points: { at: Date; cents: number }[]): Html {
  const count = points.length;
  const values = points.map((p) => p.cents);
  const max = Math.max(1, ...values);
  const width = 600;
  const height = 120;
  const bar = width / count;
  const total = values.reduce((a, b) => a + b, 0);
  return html`<figure class="chart"><svg viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" width="100%" height="${height}" role="img" aria-label="${title}: total ${brl(total)}">
${values.map((v, i) => {
  const h = Math.round((v / max) * (height - 4));
  return html`<rect x="${(i * bar + 1).toFixed(1)}" y="${height - h}" width="${(bar - 2).toFixed(1)}" height="${h}"><title>${points[i].at.toISOString().slice(0, 16).replace('T', ' ')} UTC: ${brl(v)}</title></rect>`;
})}</svg><figcaption>${title}: ${brl(total)}</figcaption></figure>`;
}

export async function overviewPage(ctx: AppContext, caller: Caller): Promise<Html> {
  const id = caller.accountId;
  const [available, judicial, med] = await Promise.all([
    balanceCents(ctx.db, ledgerCode.available(id)),
    balanceCents(ctx.db, ledgerCode.blocked(id, 'judicial')),
    balanceCents(ctx.db, ledgerCode.blocked(id, 'med')),
  ]);
  const dayStart = new Date(caller.now.toISOString().slice(0, 10) + 'T00:00:00Z');
  const today = await sumsSince(ctx.db, id, dayStart);
  const hours = await receivedPerBucket(ctx.db, id, bucketStarts(caller.now, 24, HOUR_MS), HOUR_MS);
  const days = await receivedPerBucket(ctx.db, id, bucketStarts(caller.now, 30, DAY_MS), DAY_MS);
  const health = await deliveryHealth(ctx.db, id, new Date(caller.now.getTime() - 24 * HOUR_MS), ERRORS_SHOWN);
  const rate = health.total ? `${((health.ok / health.total) * 100).toFixed(1).replace('.', ',')} %` : '—';
  return html`<div class="tiles">
<section class="tile"><h2>Saldo disponível</h2><p class="big">${brl(available)}</p><p class="muted">Bloqueios: judicial ${brl(judicial)}, MED ${brl(med)}</p></section>
<section class="tile"><h2>Recebido hoje (UTC)</h2><p class="big">${brl(today.receivedCents)}</p><p class="muted">${today.receivedCount} Pix</p></section>
<section class="tile"><h2>Enviado hoje (UTC)</h2><p class="big">${brl(today.sentCents)}</p><p class="muted">${today.sentCount} Pix</p></section>
<section class="tile"><h2>Webhooks entregues (24 h)</h2><p class="big">${rate}</p><p class="muted">${health.ok} de ${health.total} tentativas com 2xx</p></section>
</div>
<section aria-labelledby="charts"><h2 id="charts">Pix recebidos</h2>
${chart('Por hora, últimas 24 h', hours)}
${chart('Por dia, últimos 30 dias', days)}</section>
<section aria-labelledby="errors"><h2 id="errors">Erros recentes de webhook</h2>
${health.errors.length ? html`<ul class="cards">${health.errors.map((e) => html`<li>${when(e.attempted_at)} <code>${e.url}</code> · HTTP ${e.status_code ?? '—'} ${e.error ?? ''}</li>`)}</ul>` : empty('Nenhuma falha de entrega. Tudo em ordem.')}</section>`;
}
