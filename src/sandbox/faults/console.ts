/**
 * The console's faults on demand (a section of the sandbox tools page, src/sandbox/console.ts): the faults in
 * force with a button to clear each, and a form to set one. The form's fields are the API's body
 * (`PUT /sandbox/falhas/:tipo`), checked against the same schemas (kinds.ts), and the same service sets them.
 */
import { Value } from '@sinclair/typebox/value';
import type { FastifyInstance } from 'fastify';
import type { ConsoleKit, Form } from '../../console/kit.ts';
import { csrfField, html, type Html } from '../../console/render.ts';
import type { Session } from '../../console/session.ts';
import type { FaultKind } from '../../platform/faults.ts';
import { FAULT_KINDS, FAULT_KIND_NAMES, FAULT_LIMITS } from './kinds.ts';
import { clearFaults, faultBook, listFaults, setFault, type FaultView } from './book.ts';

const isKind = (text: string | undefined): text is FaultKind => FAULT_KIND_NAMES.includes(text as FaultKind);

/** The form's filled fields, typed as the kind's schema wants them; or why not. */
function bodyFrom(kind: FaultKind, form: Form): Record<string, unknown> | string {
  const schema = FAULT_KINDS[kind].body;
  const filled = Object.fromEntries(
    Object.keys(schema.properties)
      .map((field) => [field, form[field]?.trim()])
      .filter(([, value]) => value),
  );
  const body = Value.Convert(schema, filled) as Record<string, unknown>;
  const errors = [...Value.Errors(schema, body)].map((e) => `${e.path.slice(1) || tipoLabel(kind)}: ${e.message}`);
  return errors.length ? `Falha inválida. ${errors.join('; ')}.` : body;
}

const tipoLabel = (kind: FaultKind) => `tipo ${kind}`;

const describe = (fault: FaultView) =>
  [
    Object.entries(fault.parametros)
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join(', '),
    fault.vezesRestantes !== undefined && `${fault.vezesRestantes} vez(es) restante(s)`,
    fault.ate && `até ${fault.ate}`,
  ]
    .filter(Boolean)
    .join(' · ') || 'até ser removida';

export async function faultSection(kit: ConsoleKit, session: Session, page: string): Promise<Html> {
  const faults = await listFaults(faultBook(kit.ctx), session.current);
  const field = (name: string, label: string, attributes: Html) =>
    html`<label>${label} <input name="${name}" ${attributes}></label>`;
  return html`<section aria-labelledby="faults"><h2 id="faults">Falhas sob demanda</h2>
<p>O que a sua integração precisa aguentar, só nesta conta (docs/faults.md). Um reset da conta remove todas.</p>
${
  faults.length
    ? html`<ul>${faults.map(
        (f) => html`<li><strong>${f.tipo}</strong>: ${describe(f)}
<form method="post" action="${page}/faults/clear" class="inline">${csrfField(session)}<input type="hidden" name="tipo" value="${f.tipo}"><button type="submit">Remover</button></form></li>`,
      )}</ul>`
    : html`<p class="muted">Nenhuma falha em vigor.</p>`
}
<form method="post" action="${page}/faults" class="stack">${csrfField(session)}
<label for="fault-kind">Tipo</label><select id="fault-kind" name="tipo">${FAULT_KIND_NAMES.map(
    (kind) => html`<option value="${kind}">${kind}: ${FAULT_KINDS[kind].summary}</option>`,
  )}</select>
<label>resultado (chave) <select name="resultado"><option value=""></option><option>nao_encontrada</option><option>tempo_esgotado</option></select></label>
${field('esperaMs', 'esperaMs (chave tempo_esgotado)', html`type="number" min="0" max="${FAULT_LIMITS.keyLookupWaitMaxMs}"`)}
${field('status', 'status (webhook)', html`type="number" min="400" max="599"`)}
${field('codigo', 'codigo (cartao, envio)', html`pattern="[0-9A-Z]{1,4}"`)}
${field('motivo', 'motivo (devolucao, cartao, envio)', html`maxlength="${FAULT_LIMITS.reasonMaxChars}"`)}
<label>estado (instituicao) <select name="estado"><option value=""></option><option>lenta</option><option>fora</option></select></label>
${field('atrasoMs', 'atrasoMs (instituicao lenta)', html`type="number" min="1" max="${FAULT_LIMITS.slowInstitutionMaxMs}"`)}
${field('vezes', 'vezes (só as próximas N; vazio: todas)', html`type="number" min="1" max="${FAULT_LIMITS.timesMax}"`)}
${field('segundos', 'segundos (só por este tempo no relógio da conta)', html`type="number" min="1" max="${FAULT_LIMITS.durationMaxSeconds}"`)}
<button type="submit" class="primary">Definir falha</button></form></section>`;
}

export function registerFaultTools(app: FastifyInstance, kit: ConsoleKit, page: string): void {
  const book = faultBook(kit.ctx);
  app.post(
    `${page}/faults`,
    kit.guarded(async (_request, reply, session, form) => {
      if (!isKind(form.tipo)) return kit.done(reply, session, page, { kind: 'bad', text: 'Escolha o tipo de falha.' });
      const body = bodyFrom(form.tipo, form);
      if (typeof body === 'string') return kit.done(reply, session, page, { kind: 'bad', text: body });
      const fault = await setFault(book, session.current, form.tipo, body);
      return kit.done(reply, session, page, { kind: 'ok', text: `Falha ${fault.tipo} definida: ${describe(fault)}.` });
    }, 'sandbox.write'),
  );
  app.post(
    `${page}/faults/clear`,
    kit.guarded(async (_request, reply, session, form) => {
      const removed = await clearFaults(book, session.current, isKind(form.tipo) ? form.tipo : undefined);
      return kit.done(reply, session, page, { kind: 'ok', text: `${removed} falha(s) removida(s).` });
    }, 'sandbox.write'),
  );
}
