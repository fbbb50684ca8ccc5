/**
 * What the pages a shopper or payer opens share (checkout, Pix QR page, their 404): HTML escaping, one
 * stylesheet, money and dates written for a Brazilian reader. Self-contained on purpose: no external fonts,
 * scripts or CDNs, so the pages open the same on any network and leak nothing to third parties.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** JSON safe inside `<script type="application/json">`: `<` can never close the element. */
export const jsonForScript = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** R$ 1.234,56: what the shopper reads (integer cents in). */
export const brl = (amountCents: number) =>
  (amountCents / 100).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' }).replace(/\u00a0/g, ' ');

/** The stylesheet of every shopper-facing page: a card on a quiet background, readable on a phone. */
export const PAGE_STYLE = `
*{box-sizing:border-box}
body{margin:0;background:#f3f5f8;color:#1b1f24;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:30rem;margin:0 auto;padding:1.25rem 1rem 2rem}
.card{background:#fff;border:1px solid #e1e5eb;border-radius:.75rem;padding:1.25rem;margin-top:1rem;box-shadow:0 1px 2px rgba(16,24,40,.05)}
header.merchant{padding-top:.5rem}
header.merchant .label{margin:0;color:#5b6573;font-size:.85rem}
header.merchant h1{margin:.1rem 0 0;font-size:1.5rem;line-height:1.25;word-break:break-word}
h2{font-size:1.05rem;margin:0 0 .75rem}
.sandbox{background:#fff7e0;border:1px solid #f0c36d;border-radius:.75rem;padding:.75rem 1rem;margin-top:1rem;font-size:.9rem}
.sandbox strong{display:block}
.sandbox code{overflow-wrap:anywhere;font-size:.85rem;background:#fff;padding:.05rem .3rem;border-radius:.25rem;border:1px solid #f0d9a0}
table{width:100%;border-collapse:collapse}
td{padding:.35rem 0;vertical-align:top}
td.value{text-align:right;white-space:nowrap;padding-left:1rem}
tr.total td{border-top:1px solid #e1e5eb;padding-top:.6rem;font-weight:700;font-size:1.1rem}
label{display:block;margin:.8rem 0 .25rem;font-size:.9rem;font-weight:600}
input,select{width:100%;padding:.6rem .7rem;font:inherit;border:1px solid #c4cbd5;border-radius:.4rem;background:#fff}
input:focus,select:focus,button:focus-visible{outline:3px solid #8ab4f8;outline-offset:1px}
input[aria-invalid=true]{border-color:#c62828}
.field-error{color:#c62828;font-size:.85rem;margin:.2rem 0 0;min-height:0}
.row{display:flex;gap:.6rem}.row>div{flex:1;min-width:0}
button{display:block;width:100%;margin-top:1.25rem;padding:.8rem;font:inherit;font-weight:700;color:#fff;background:#0a7c4a;border:0;border-radius:.5rem;cursor:pointer}
button:disabled{background:#8aa699;cursor:progress}
button.secondary{background:#fff;color:#0a5c9e;border:1px solid #0a5c9e}
.status{margin:1rem 0 0;padding:.75rem 1rem;border-radius:.5rem;font-weight:600}
.status:empty{display:none}
.status.ok,.ok{background:#e6f4ea;color:#0b5a2a}
.status.error,.error{background:#fdecea;color:#a11d1d}
.status.info{background:#e8f0fe;color:#174ea6}
.muted{color:#5b6573;font-size:.9rem}
.secure{margin-top:1.25rem;text-align:center;color:#5b6573;font-size:.8rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.35rem 1rem;margin:0}
dt{color:#5b6573}dd{margin:0;text-align:right;font-weight:600;word-break:break-word}
[hidden]{display:none!important}
`;

/** A whole page around `body` (already HTML). */
export function page(input: { title: string; body: string; style?: string; script?: string }): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(input.title)}</title>
<style>${PAGE_STYLE}${input.style ?? ''}</style>
</head>
<body>
<main>
${input.body}
</main>
${input.script ? `<script>${input.script}</script>` : ''}
</body>
</html>
`;
}

/** The friendly 404 of a payment link nobody issued (or mistyped): what happened and what to do. */
export function notFoundPage(what: string): string {
  return page({
    title: 'Página não encontrada',
    body: `<div class="card" role="alert">
<h1 style="font-size:1.3rem;margin-top:0">Não encontramos ${escapeHtml(what)}</h1>
<p>O endereço pode ter sido digitado errado, estar incompleto ou não existir mais.</p>
<p class="muted">Confira o link que você recebeu ou peça um novo link a quem fez a cobrança. Nenhum pagamento foi feito.</p>
</div>`,
  });
}
