/**
 * The account's configuration and batch work: keys, settings (`GET /v2/gn/config`), split configurations
 * (`GET /v2/gn/split/config/:id`), batches of due charges (`GET /v2/lotecobv`), scheduled Pix
 * (`GET /v1/pix/schedules`) and reconciliation reports with their download (`GET /v2/gn/relatorios/:id`).
 */
import type { AppContext } from '../platform/context.ts';
import { LIMITS } from '../platform/limits.ts';
import { activeKeys } from '../accounts/store.ts';
import { readSettings } from '../pix/settings/service.ts';
import { readConfig } from '../pix/split/service.ts';
import { recentSplitConfigIds } from '../pix/split/store.ts';
import { listBatchPage } from '../pix/lotecobv/service.ts';
import { listSchedules } from '../pix/schedules/service.ts';
import { recentReports } from '../pix/reports/store.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { badge, brl, empty, html, when, type Html } from './render.ts';

const DAY_MS = 86_400_000;
/** Past and future days of scheduled Pix shown: the API lists at most 31 days at once. */
const SCHEDULE_DAYS_BEFORE = 15;
const SCHEDULE_DAYS_AFTER = 15;
const BATCH_DAYS = 30;

export async function accountPage(ctx: AppContext, caller: Caller): Promise<Html> {
  const now = caller.now.getTime();
  const [keys, settings, splitIds, batches, schedules, reports] = await Promise.all([
    activeKeys(ctx.db, caller.accountId),
    readSettings(ctx.db, caller),
    recentSplitConfigIds(ctx.db, caller.accountId, LIMITS.consolePageSize),
    listBatchPage(ctx.db, caller, {
      inicio: new Date(now - BATCH_DAYS * DAY_MS).toISOString(),
      fim: new Date(now + DAY_MS).toISOString(),
      'paginacao.itensPorPagina': LIMITS.consolePageSize,
    }),
    listSchedules(ctx.db, caller.accountId, {
      inicio: new Date(now - SCHEDULE_DAYS_BEFORE * DAY_MS).toISOString(),
      fim: new Date(now + SCHEDULE_DAYS_AFTER * DAY_MS).toISOString(),
      limit: LIMITS.consolePageSize,
    }),
    recentReports(ctx.db, caller.accountId, LIMITS.consolePageSize),
  ]);
  const splits = await Promise.all(splitIds.map((id) => readConfig(ctx.db, caller, id)));
  return html`<section aria-labelledby="keys"><h2 id="keys">Chaves Pix</h2>
${keys.length ? html`<ul>${keys.map((k) => html`<li><code>${k}</code></li>`)}</ul>` : empty('Nenhuma chave ativa.', html`Crie uma chave aleatória com <code>POST /v2/gn/evp</code>.`)}</section>
<section aria-labelledby="settings"><h2 id="settings">Configurações</h2><pre>${JSON.stringify(settings, null, 2)}</pre></section>
<section aria-labelledby="splits"><h2 id="splits">Configurações de split</h2>
${splits.length ? html`<ul class="cards">${splits.map((s) => html`<li><p><code>${s.id}</code> revisão ${s.revisao} ${s.descricao ?? ''}</p><p class="muted">Repasses: ${s.split.repasses.map((r) => `${r.valor} (${r.tipo}) para a conta ${r.favorecido.conta}`).join('; ') || 'nenhum'}</p></li>`)}</ul>` : empty('Nenhuma configuração de split.', html`Crie uma com <code>POST /v2/gn/split/config</code>.`)}</section>
<section aria-labelledby="batches"><h2 id="batches">Lotes de cobranças com vencimento (${BATCH_DAYS} dias)</h2>
${batches.lotes.length ? html`<ul class="cards">${batches.lotes.map((l) => html`<li><p><strong>Lote ${l.id}</strong> ${l.descricao} · ${when(l.criacao)}</p><ul>${l.cobsv.map((c) => html`<li><a href="/console/charges/cobv/${encodeURIComponent(c.txid)}"><code>${c.txid}</code></a> ${badge(c.status)}${c.problema ? html` <span class="muted">${JSON.stringify(c.problema)}</span>` : ''}</li>`)}</ul></li>`)}</ul>` : empty('Nenhum lote no período.', html`Envie um com <code>PUT /v2/lotecobv/:id</code>.`)}</section>
<section aria-labelledby="schedules"><h2 id="schedules">Pix agendados (${SCHEDULE_DAYS_BEFORE} dias atrás a ${SCHEDULE_DAYS_AFTER} à frente)</h2>
${schedules.data.length ? html`<div class="scroll"><table><caption class="sr">Pix agendados</caption><thead><tr><th scope="col">Data</th><th scope="col">Para</th><th scope="col">Status</th><th scope="col" class="num">Valor</th></tr></thead><tbody>${schedules.data.map((s) => html`<tr><td>${when(s.scheduling_date)}</td><td>${s.receiver_name} <code>${s.end_user_account}</code></td><td>${badge(s.status)}</td><td class="num">${brl(Math.round(s.value * 100))}</td></tr>`)}</tbody></table></div>` : empty('Nenhum Pix agendado no período.', html`Agende com <code>pixd schedule create</code>.`)}</section>
<section aria-labelledby="reports"><h2 id="reports">Relatórios de conciliação</h2>
${reports.length ? html`<ul>${reports.map((r) => html`<li>${r.data_movimento} ${badge(r.status)} pedido ${when(r.requested_at)}${r.status === 'CONCLUIDO' ? html` · <a href="/console/reports/${encodeURIComponent(r.public_id)}" download>baixar CSV</a>` : ''}</li>`)}</ul>` : empty('Nenhum relatório pedido.', html`Peça um com <code>POST /v2/gn/relatorios/extrato-conciliacao</code>.`)}</section>`;
}
