/**
 * Server-side HTML for the console: an escaping template tag, the layout every page shares, and the
 * formats a person reads (BRL amounts, dates the browser turns into its own time zone with UTC on hover).
 */
import type { Session } from './session.ts';

/** Marks text as already-safe HTML (built by `html` or a helper here). */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Part = Html | string | number | null | undefined | false | Part[];

function part(value: Part): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(part).join('');
  if (value instanceof Html) return value.text;
  return escapeHtml(String(value));
}

/** Every interpolated value is escaped unless it is `Html`. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    out += part(value) + strings[i + 1];
  });
  return new Html(out);
}

const GROUPS = /\B(?=(\d{3})+(?!\d))/g;

/** `R$ 1.234,56` from integer cents (no floating point on the way). */
export function brl(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const reais = Math.floor(abs / 100)
    .toString()
    .replace(GROUPS, '.');
  return `${sign}R$ ${reais},${String(abs % 100).padStart(2, '0')}`;
}

/** A point in time: the UTC text is shown until the page script rewrites it in the browser's zone. */
export function when(at: Date | string | null | undefined): Html {
  if (!at) return html`<span class="muted">—</span>`;
  const iso = typeof at === 'string' ? at : at.toISOString();
  const utc = `${iso.slice(0, 19).replace('T', ' ')} UTC`;
  return html`<time datetime="${iso}" title="${utc}">${utc}</time>`;
}

export function empty(message: string, next?: Html | string): Html {
  return html`<div class="empty"><p>${message}</p>${next ? html`<p>${next}</p>` : ''}</div>`;
}

const STATUS_CLASS: Record<string, string> = {
  ATIVA: 'info',
  CONCLUIDA: 'ok',
  PAGA: 'ok',
  AGENDADA: 'info',
  REJEITADA: 'bad',
  entregue: 'ok',
  pendente: 'info',
  falhou: 'bad',
  nao_enviado: 'warn',
  REMOVIDA_PELO_USUARIO_RECEBEDOR: 'warn',
  REMOVIDA_PELO_PSP: 'warn',
};

export function badge(status: string): Html {
  return html`<span class="badge ${STATUS_CLASS[status] ?? ''}">${status}</span>`;
}

export interface PageFrame {
  title: string;
  /** The nav entry to mark as current. */
  section: string;
  session: Session;
  accounts: { id: number; nome: string }[];
  sandbox: boolean;
  /** Lists that follow live updates mark their region; the script reloads it on change. */
  live?: boolean;
  flash?: { kind: 'ok' | 'bad'; text: string };
}

const NAV: [string, string, boolean][] = [
  ['overview', 'Visão geral', false],
  ['charges', 'Cobranças', false],
  ['pix', 'Pix', false],
  ['webhooks', 'Webhooks', false],
  ['account', 'Conta', false],
  ['sandbox', 'Sandbox', true],
];

export function csrfField(session: Session): Html {
  return html`<input type="hidden" name="_csrf" value="${session.csrf}">`;
}

function switcher(frame: PageFrame): Html {
  const { session, accounts } = frame;
  const name = accounts.find((a) => a.id === session.current)?.nome ?? `conta ${session.current}`;
  if (accounts.length < 2) return html`<span class="account">${name}</span>`;
  return html`<form method="post" action="/console/switch" class="switcher">${csrfField(session)}
    <label for="account-switch">Conta</label>
    <select id="account-switch" name="account">${accounts.map(
      (a) =>
        html`<option value="${a.id}"${a.id === session.current ? html` selected` : ''}>${a.nome} (${a.id})</option>`,
    )}</select>
    <button type="submit">Trocar</button></form>`;
}

export function layout(frame: PageFrame, body: Html): Html {
  const nav = NAV.filter(([, , sandboxOnly]) => frame.sandbox || !sandboxOnly);
  return html`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${frame.session.csrf}">
<title>${frame.title} · pixd console</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head><body>
<a class="skip" href="#main">Pular para o conteúdo</a>
<header class="top"><a class="brand" href="/console">pixd</a>
<nav aria-label="Seções"><ul>${nav.map(
    ([id, label]) =>
      html`<li><a href="/console${id === 'overview' ? '' : `/${id}`}"${id === frame.section ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>
<div class="who">${switcher(frame)}
${frame.live ? html`<span id="live" class="live" data-state="off" role="status" aria-live="polite">conectando</span>` : ''}
<form method="post" action="/console/signout">${csrfField(frame.session)}<button type="submit" class="link">Sair</button></form></div>
</header>
<main id="main"${frame.live ? html` data-live="1"` : ''}>
${frame.flash ? html`<p class="flash ${frame.flash.kind}" role="status">${frame.flash.text}</p>` : ''}
<h1>${frame.title}</h1>
<div id="live-region">${body}</div>
</main></body></html>`;
}

/** Pages outside a session (sign-in): same styles, no navigation. */
export function bareLayout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · pixd console</title>
<link rel="stylesheet" href="/console/assets/console.css">
</head><body><main id="main" class="narrow"><h1>${title}</h1>${body}</main></body></html>`;
}
