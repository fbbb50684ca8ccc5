/**
 * The consent pages' HTML, the same for every kind of consent (journey.ts): rendered on the server, inline styles, no script and nothing loaded from elsewhere
 * (the logo is inline too), so they work on any browser and on a phone-sized screen. Every value from a
 * request or an enrolment is escaped.
 */
import { formatAmount, parseAmount } from '../../platform/money.ts';
import { CONSENT_PASSWORD, type ConsentPageModel } from './journey.ts';

export const esc = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const brl = (amount: string) => `R$ ${formatAmount(parseAmount(amount)).replace('.', ',')}`;
export const ptDate = (date: string) => date.split('-').reverse().join('/');

/** 123.456.789-09 and 12.345.678/0001-95: masked in the middle, as institutions show documents. */
export function maskedDocument(doc: string): string {
  return doc.length === 11
    ? `***.${doc.slice(3, 6)}.${doc.slice(6, 9)}-**`
    : `${doc.slice(0, 2)}.${doc.slice(2, 5)}.${doc.slice(5, 8)}/${doc.slice(8, 12)}-${doc.slice(12)}`;
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f2f4f8;color:#161616}
main{max-width:560px;margin:0 auto;padding:16px}
header{display:flex;align-items:center;gap:12px;margin:8px 0 16px}header img{width:48px;height:48px}
h1{font-size:1.3rem;margin:0}.sub{color:#525252;font-size:.9rem;margin:0}
section{background:#fff;border-radius:12px;padding:16px;margin-bottom:12px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
h2{font-size:1rem;margin:0 0 8px}dl{margin:0}dt{color:#525252;font-size:.85rem}dd{margin:0 0 8px;font-weight:600}
label{display:block;font-size:.9rem;margin:8px 0 4px}input{width:100%;padding:12px;font-size:1rem;border:1px solid #8d8d8d;border-radius:8px}
.hint{background:#fff8e1;border-left:4px solid #f1c21b;padding:8px 12px;font-size:.9rem;margin:8px 0}
.error{background:#fff1f1;border-left:4px solid #da1e28;padding:8px 12px;margin:8px 0}
.buttons{display:flex;gap:12px;margin-top:16px;flex-wrap:wrap}
button{flex:1 1 140px;padding:14px;font-size:1rem;border-radius:8px;border:0;cursor:pointer}
.approve{background:#24a148;color:#fff}.decline{background:#e0e0e0;color:#161616}
footer{color:#6f6f6f;font-size:.8rem;text-align:center;margin:16px 0}`;

function layout(title: string, model: ConsentPageModel | undefined, content: string): string {
  const participant = model?.participant;
  const head = participant
    ? `<header><img src="${esc(participant.logo)}" alt=""><div><h1>${esc(participant.nome)}</h1><p class="sub">Autorização de ${esc(model!.product)}</p></div></header>`
    : '<header><div><h1>Open Finance</h1></div></header>';
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${head}${content}<footer>Página servida pelo pixd, que representa a instituição do pagador (ambiente de simulação).</footer></main></body></html>`;
}

/** The page of a pending link: what is asked, the account debited, and the login form. */
export function consentPage(model: ConsentPageModel, action: string): string {
  const content = `
<section><h2>${esc(model.heading)}</h2><dl>
${model.rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}
<dt>Conta que será debitada</dt><dd>Sua conta em ${esc(model.participant?.nome ?? 'sua instituição')}: ${esc(model.account)}</dd>
</dl></section>
<section><h2>Entre para decidir</h2>
<p class="hint">Simulação: use o documento <strong id="login-hint">${esc(model.login)}</strong> e a senha <strong>${CONSENT_PASSWORD}</strong>.</p>
${model.error ? `<p class="error" role="alert">${esc(model.error)}</p>` : ''}
<form method="post" action="${esc(action)}">
<label for="login">CPF ou CNPJ</label><input id="login" name="login" inputmode="numeric" autocomplete="username" required>
<label for="senha">Senha</label><input id="senha" name="senha" type="password" autocomplete="current-password" required>
<div class="buttons"><button class="approve" name="decisao" value="autorizar" type="submit">Autorizar</button>
<button class="decline" name="decisao" value="recusar" type="submit">Recusar</button></div>
</form></section>`;
  return layout(`Autorizar ${model.product}`, model, content);
}

/** A link already decided, expired or revoked: what happened, and no form. */
export function closedPage(model: ConsentPageModel): string {
  const closed = model.closed ?? { text: 'Este pedido já foi decidido.', motivo: null };
  const motivo = closed.motivo ? `<p>${esc(closed.motivo)}</p>` : '';
  return layout(model.product, model, `<section><h2 id="status">${esc(closed.text)}</h2>${motivo}</section>`);
}

export function notFoundPage(): string {
  return layout(
    'Link não encontrado',
    undefined,
    '<section><h2>Link não encontrado</h2><p>Confira o endereço recebido do recebedor.</p></section>',
  );
}
