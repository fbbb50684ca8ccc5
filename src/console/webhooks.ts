/**
 * Webhooks: the account's registrations (per key; per kind for rec and cobr), every recent delivery with
 * each attempt, and replay. A replay is `POST /v2/gn/webhook/reenviar` (`requestResend`): the same checks
 * (resend window, a webhook registered for the key) and a new delivery of one attempt. Only received-Pix
 * deliveries can be replayed, as through the API.
 */
import type { AppContext } from '../platform/context.ts';
import { LIMITS } from '../platform/limits.ts';
import { recentDeliveries } from '../platform/webhooks/inspection.ts';
import { WEBHOOK_TOPICS } from '../pix/webhook/events.ts';
import { findAccountWebhook, listPixWebhooks } from '../pix/webhook/store.ts';
import { requestResend } from '../pix/webhook/resend.ts';
import { OPENING_TOPIC } from '../opening/events.ts';
import { NOTIFICATION_TOPIC } from '../billing/notifications/delivery.ts';
import type { Caller } from '../pix/shared/caller.ts';
import type { Session } from './session.ts';
import { badge, csrfField, empty, html, when, type Html } from './render.ts';

// Pix, recurrence and account-opening webhooks, and card billing's notifications.
const ALL_TOPICS = [...Object.values(WEBHOOK_TOPICS), OPENING_TOPIC, NOTIFICATION_TOPIC].map((t) => t.name);
const PIX_TOPICS = new Set([WEBHOOK_TOPICS.pix.name, WEBHOOK_TOPICS.pixResend.name]);

type Delivery = Awaited<ReturnType<typeof recentDeliveries>>[number];

const cut = (text: string | null) =>
  text && text.length > LIMITS.consoleBodyShownMaxChars ? `${text.slice(0, LIMITS.consoleBodyShownMaxChars)}…` : text;

type Attempt = Delivery['tentativas'][number];

const bytesLabel = (b: { corpo: string; bytes: number }) =>
  b.bytes > LIMITS.webhookAttemptBodyBytes
    ? `primeiros ${LIMITS.webhookAttemptBodyBytes} de ${b.bytes} bytes`
    : `${b.bytes} bytes`;

/** What an attempt sent and what the receiver answered, as kept (cut) with it; escaped like every value. */
function attemptBodies(a: Attempt): Html | '' {
  if (!a.enviado && !a.resposta) return '';
  const part = (title: string, body: Attempt['enviado']) =>
    body
      ? html`<p>${title} (${bytesLabel(body)})</p><pre>${body.corpo || '(vazio)'}</pre>`
      : html`<p>${title}: nenhuma</p>`;
  return html`<details class="bodies" data-attempt="${a.numero}"><summary>Tentativa ${a.numero}: corpo enviado e resposta</summary>
${part('Enviado', a.enviado)}${part('Resposta', a.resposta)}</details>`;
}

const PIX_WEBHOOK_HINT = html`Cadastre um webhook para a chave com <code>PUT /v2/webhook/:chave</code>; cada Pix recebido gera uma entrega.`;

/** A delivery's attempts; the replay button where the API could resend it (a received Pix). */
export function deliveryTable(
  caller: Caller & { session?: Session },
  deliveries: Delivery[],
  emptyHint: Html = PIX_WEBHOOK_HINT,
): Html {
  if (!deliveries.length) return empty('Nenhuma entrega de webhook ainda.', emptyHint);
  return html`<ul class="cards deliveries">${deliveries.map(
    (
      d,
    ) => html`<li data-delivery="${d.id}"><p><strong>#${d.id}</strong> ${d.topico} ${badge(d.situacao)} criada ${when(d.criacao)}
${d.assunto ? html` · <code>${d.assunto}</code>` : ''}</p>
${d.ultimoErro ? html`<p class="muted">Último erro: ${cut(d.ultimoErro)}</p>` : ''}
${'evento' in d ? html`<details><summary>Evento entregue${d.topico.startsWith('webhook.pix') ? ' (o corpo segue as configurações de notificação da chave)' : ''}</summary><pre>${cut(JSON.stringify(d.evento, null, 2))}</pre></details>` : ''}
${
  d.tentativas.length
    ? html`<div class="scroll"><table><caption class="sr">Tentativas da entrega ${d.id}</caption><thead><tr><th scope="col">#</th><th scope="col">Horário</th><th scope="col">URL</th><th scope="col" class="num">HTTP</th><th scope="col" class="num">Latência</th><th scope="col">Erro</th></tr></thead>
<tbody>${d.tentativas.map((a) => html`<tr class="attempt"><td>${a.numero}</td><td>${when(a.horario)}</td><td><code class="url" title="${a.url}">${a.url}</code></td><td class="num">${a.statusHttp ?? '—'}</td><td class="num">${a.latenciaMs} ms</td><td>${cut(a.erro) ?? ''}</td></tr>`)}</tbody></table></div>
${d.tentativas.map(attemptBodies)}`
    : html`<p class="muted">Nenhuma tentativa ainda.</p>`
}
${caller.session && PIX_TOPICS.has(d.topico) && d.assunto ? html`<form method="post" action="/console/webhooks/replay">${csrfField(caller.session)}<input type="hidden" name="e2eid" value="${d.assunto}"><button type="submit">Reenviar</button></form>` : ''}</li>`,
  )}</ul>`;
}

export async function webhooksPage(ctx: AppContext, caller: Caller, session: Session): Promise<Html> {
  const { rows: registrations } = await listPixWebhooks(
    ctx.db,
    caller.accountId,
    new Date(0),
    caller.now,
    0,
    LIMITS.consoleDeliveriesShown,
  );
  const accountHooks = (
    await Promise.all((['rec', 'cobr'] as const).map((kind) => findAccountWebhook(ctx.db, caller.accountId, kind)))
  ).filter((row) => row !== undefined);
  const deliveries = await recentDeliveries(ctx.db, caller.accountId, ALL_TOPICS, LIMITS.consoleDeliveriesShown, {
    withEvent: true,
  });
  const today = caller.now.toISOString().slice(0, 10);
  return html`<section aria-labelledby="reg"><h2 id="reg">Cadastros</h2>
${
  registrations.length || accountHooks.length
    ? html`<div class="scroll"><table><caption class="sr">Webhooks cadastrados</caption><thead><tr><th scope="col">Chave ou tipo</th><th scope="col">URL</th><th scope="col">Cadastro</th></tr></thead><tbody>
${registrations.map((r) => html`<tr><td><code>${r.chave}</code></td><td><code class="url" title="${r.webhook_url}">${r.webhook_url}</code></td><td>${when(r.created_at)}</td></tr>`)}
${accountHooks.map((r) => html`<tr><td>${r.kind}</td><td><code class="url" title="${r.webhook_url}">${r.webhook_url}</code></td><td>${when(r.created_at)}</td></tr>`)}
</tbody></table></div>`
    : empty(
        'Nenhum webhook cadastrado.',
        html`Cadastre um com <code>PUT /v2/webhook/:chave</code> (chave Pix) ou <code>PUT /v2/webhookrec</code>.`,
      )
}</section>
<section aria-labelledby="replay-all"><h2 id="replay-all">Reenviar as que falharam</h2>
<form method="post" action="/console/webhooks/replay-failed" class="search">${csrfField(session)}
<label>De <input type="date" name="from" value="${today}" required></label>
<label>Até <input type="date" name="to" value="${today}" required></label>
<button type="submit">Reenviar falhas do período</button></form></section>
<section aria-labelledby="deliv"><h2 id="deliv">Entregas recentes</h2>${deliveryTable({ ...caller, session }, deliveries)}</section>`;
}

/** The received Pix whose deliveries failed (gave up, or never answered 2xx) in [from, to). */
export async function failedPixIn(ctx: AppContext, accountId: number, from: Date, to: Date): Promise<string[]> {
  const deliveries = await recentDeliveries(ctx.db, accountId, [...PIX_TOPICS], LIMITS.consoleDeliveriesShown * 20, {
    createdFrom: from,
    createdTo: to,
  });
  const failed = deliveries.filter((d) => (d.situacao === 'falhou' || d.situacao === 'nao_enviado') && d.assunto);
  return [...new Set(failed.map((d) => d.assunto!))];
}

export function replay(ctx: AppContext, caller: Caller, e2eids: string[]) {
  return requestResend(ctx.db, caller, { tipo: 'PIX_RECEBIDO', e2eids });
}
