/**
 * The consent pages' HTML: rendered on the server, inline styles, no script and nothing loaded from elsewhere
 * (the logo is inline too), so they work on any browser and on a phone-sized screen. Every value from a
 * request or an enrolment is escaped.
 */
import { formatAmount, parseAmount } from '../../platform/money.ts';
import type { ConsentView } from './service.ts';

const esc = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const brl = (amount: string) => `R$ ${formatAmount(parseAmount(amount)).replace('.', ',')}`;
const ptDate = (date: string) => date.split('-').reverse().join('/');

/** 123.456.789-09 and 12.345.678/0001-95: masked in the middle, as institutions show documents. */
function maskedDocument(doc: string): string {
  return doc.length === 11
    ? `***.${doc.slice(3, 6)}.${doc.slice(6, 9)}-**`
    : `${doc.slice(0, 2)}.${doc.slice(2, 5)}.${doc.slice(5, 8)}/${doc.slice(8, 12)}-${doc.slice(12)}`;
}

const INTERVAL_TEXT: Record<string, string> = {
  SEMANAL: 'uma vez por semana',
  MENSAL: 'uma vez por mês',
  TRIMESTRAL: 'uma vez a cada três meses',
  SEMESTRAL: 'uma vez a cada seis meses',
  ANUAL: 'uma vez por ano',
};

function amountText(auto: ConsentView['enrolment']['body']['assinatura']['configuracao']['automatico']): string {
  if (auto.valorFixo) return `Valor fixo de ${brl(auto.valorFixo)} por cobrança.`;
  if (auto.valorMinimo && auto.valorMaximo)
    return `Entre ${brl(auto.valorMinimo)} e ${brl(auto.valorMaximo)} por cobrança.`;
  if (auto.valorMaximo) return `Até ${brl(auto.valorMaximo)} por cobrança.`;
  return `A partir de ${brl(auto.valorMinimo!)} por cobrança (sem limite máximo).`;
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

function layout(title: string, view: ConsentView | undefined, content: string): string {
  const participant = view?.participant;
  const head = participant
    ? `<header><img src="${esc(participant.logo)}" alt=""><div><h1>${esc(participant.nome)}</h1><p class="sub">Autorização de Pix Automático</p></div></header>`
    : '<header><div><h1>Pix Automático</h1></div></header>';
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${head}${content}<footer>Página servida pelo pixd, que representa a instituição do pagador (ambiente de simulação).</footer></main></body></html>`;
}

export function consentPage(view: ConsentView, action: string): string {
  const { enrolment, requester } = view;
  const { pagador, assinatura } = enrolment.body;
  const auto = assinatura.configuracao.automatico;
  const first = auto.primeiroPagamento;
  const rows: [string, string][] = [
    [
      'Quem pede',
      `${requester.nome} (${requester.documento.length === 14 ? 'CNPJ' : 'CPF'} ${maskedDocument(requester.documento)})`,
    ],
    ...(assinatura.descricao ? [['Para quê', assinatura.descricao] as [string, string]] : []),
    ['Valor', amountText(auto)],
    [
      'Frequência',
      `Débito automático ${INTERVAL_TEXT[auto.intervalo]}, de ${ptDate(auto.dataInicio)} até ${ptDate(assinatura.expiracao)}.`,
    ],
    ...(first ? [['Primeiro pagamento', `${brl(first.valor)} em ${ptDate(first.data)}.`] as [string, string]] : []),
    [
      'Se um pagamento falhar',
      auto.permiteRetentativa ? 'Uma nova tentativa pode ser feita.' : 'Não haverá nova tentativa.',
    ],
  ];
  const account = `${pagador.nome ? `${pagador.nome}, ` : ''}${pagador.cpf ? 'CPF' : 'CNPJ'} ${maskedDocument(view.login)}`;
  const content = `
<section><h2>${esc(requester.nome)} quer fazer cobranças automáticas na sua conta</h2><dl>
${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}
<dt>Conta que será debitada</dt><dd>Sua conta em ${esc(view.participant?.nome ?? 'sua instituição')}: ${esc(account)}</dd>
</dl></section>
<section><h2>Entre para decidir</h2>
<p class="hint">Simulação: use o documento <strong id="login-hint">${esc(view.login)}</strong> e a senha <strong>123456</strong>.</p>
${view.error ? `<p class="error" role="alert">${esc(view.error)}</p>` : ''}
<form method="post" action="${esc(action)}">
<label for="login">CPF ou CNPJ</label><input id="login" name="login" inputmode="numeric" autocomplete="username" required>
<label for="senha">Senha</label><input id="senha" name="senha" type="password" autocomplete="current-password" required>
<div class="buttons"><button class="approve" name="decisao" value="autorizar" type="submit">Autorizar</button>
<button class="decline" name="decisao" value="recusar" type="submit">Recusar</button></div>
</form></section>`;
  return layout(`Autorizar Pix Automático: ${requester.nome}`, view, content);
}

const STATUS_TEXT: Record<string, string> = {
  autorizado: 'Você autorizou este Pix Automático.',
  rejeitado: 'Este pedido de Pix Automático não foi autorizado.',
  revogado: 'Este Pix Automático foi cancelado pelo recebedor.',
  finalizado: 'Este Pix Automático terminou.',
};

/** A link already decided, expired or revoked: what happened, and no form. */
export function closedPage(view: ConsentView): string {
  const { enrolment } = view;
  const motivo = enrolment.motivo ? `<p>${esc(enrolment.motivo)}</p>` : '';
  return layout(
    'Pix Automático',
    view,
    `<section><h2 id="status">${esc(STATUS_TEXT[enrolment.status] ?? enrolment.status)}</h2>${motivo}</section>`,
  );
}

export function notFoundPage(): string {
  return layout(
    'Link não encontrado',
    undefined,
    '<section><h2>Link não encontrado</h2><p>Confira o endereço recebido do recebedor.</p></section>',
  );
}
