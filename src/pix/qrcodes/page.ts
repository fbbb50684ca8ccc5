/**
 * The `linkVisualizacao` page: what a payer sees of a dynamic QR code. The receiver, the amount, the status
 * and until when it can be paid, then the QR image and the copy-and-paste text, only while the charge can
 * still be paid (a paid, removed or expired charge says so instead, so nobody pays twice or in vain).
 * Self-contained (image inline, no script from elsewhere): its script copies the code and watches the status.
 */
import { brasiliaDisplayDateTime, brazilianDate } from '../../platform/calendar.ts';
import { brl, escapeHtml, page } from '../../platform/html.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { ChargeSummary } from '../payload/service.ts';

const STATUS_LABELS: Record<ChargeSummary['status'], string> = {
  ATIVA: 'Aguardando pagamento',
  CONCLUIDA: 'Paga',
  REMOVIDA_PELO_USUARIO_RECEBEDOR: 'Cancelada pelo recebedor',
  REMOVIDA_PELO_PSP: 'Cancelada pela instituição do recebedor',
};

/** The times shown are Brasília's, whatever the payer's own zone: said next to each. */
const BRASILIA = '(horário de Brasília)';

const QR_STYLE = `
.qr{text-align:center}
.qr img{width:100%;max-width:${LIMITS.qrImageSidePixels}px;image-rendering:pixelated}
textarea{width:100%;height:6.5rem;font:.8rem/1.4 ui-monospace,monospace;word-break:break-all;border:1px solid #c4cbd5;border-radius:.4rem;padding:.5rem;resize:none}
`;

/** Copies the code and says so (role=status); where the clipboard is refused, selects it for a manual copy. */
const COPY_SCRIPT = `
const copy = document.getElementById('copy');
if (copy) copy.addEventListener('click', async () => {
  const code = document.getElementById('code');
  const status = document.getElementById('copy-status');
  try {
    await navigator.clipboard.writeText(code.value);
    status.className = 'status ok';
    status.textContent = 'Código copiado. Cole no app do seu banco, na opção Pix Copia e Cola.';
    copy.textContent = 'Copiado';
  } catch {
    code.focus();
    code.select();
    status.className = 'status info';
    status.textContent = 'Não foi possível copiar automaticamente: o código está selecionado, copie-o manualmente.';
  }
});`;

/**
 * While the QR is shown the page asks itself, every `LIMITS.qrPageRefreshMs`, whether the charge changed
 * (paid, cancelled, expired: `data-state` differs) and reloads when it did: the payer sees "Paga" and the QR
 * goes away without reloading by hand. A failed check is retried at the next turn.
 */
const REFRESH_SCRIPT = `
const state = document.querySelector('[data-state]');
if (state) setInterval(async () => {
  try {
    const answer = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' });
    const now = /data-state="([^"]*)"/.exec(await answer.text());
    if (answer.ok && now && now[1] !== state.dataset.state) location.reload();
  } catch {}
}, ${LIMITS.qrPageRefreshMs});`;

function row(term: string, value: string, id: string): string {
  return `<dt>${escapeHtml(term)}</dt><dd id="${id}">${escapeHtml(value)}</dd>`;
}

/** Why the QR is not shown, when it is not; undefined while the charge can be paid. */
function notice(charge: ChargeSummary | undefined): { kind: 'ok' | 'error' | 'info'; text: string } | undefined {
  if (!charge)
    return { kind: 'info', text: 'Nenhuma cobrança está ligada a este QR Code no momento. Não pague por ele.' };
  if (charge.status === 'CONCLUIDA') return { kind: 'ok', text: 'Pagamento recebido. Esta cobrança já está paga.' };
  if (charge.status !== 'ATIVA')
    return { kind: 'error', text: 'Esta cobrança foi cancelada e não pode mais ser paga.' };
  if (charge.expired) return { kind: 'error', text: 'O prazo para pagar esta cobrança terminou.' };
  return undefined;
}

export function visualizationPage(input: {
  recebedor: string;
  brCode: string;
  image: string;
  charge: ChargeSummary | undefined;
  sandbox: boolean;
}): string {
  const { charge } = input;
  const blocked = notice(charge);
  // Until when matters only while it can be paid (or to say when it stopped being payable).
  const deadline = charge?.status === 'ATIVA';
  const details = charge
    ? `<dl data-status="${charge.status}" data-state="${charge.status}${charge.expired ? ':expirada' : ''}">
${row('Valor', brl(charge.amountCents), 'amount')}
${row('Situação', charge.expired && charge.status === 'ATIVA' ? 'Expirada' : STATUS_LABELS[charge.status], 'status')}
${deadline && charge.expiresAt ? row(charge.expired ? 'Expirou em' : 'Pague até', `${brasiliaDisplayDateTime(charge.expiresAt)} ${BRASILIA}`, 'expiry') : ''}
${deadline && charge.dueDate ? row('Vencimento', brazilianDate(charge.dueDate), 'due') : ''}
${deadline && charge.lastPayableDate ? row('Pague até', brazilianDate(charge.lastPayableDate), 'expiry') : ''}
</dl>`
    : '';
  const qr = blocked
    ? ''
    : `<section class="card qr" aria-labelledby="qr-title">
<h2 id="qr-title">Escaneie com o app do seu banco</h2>
<img src="${input.image}" alt="QR Code Pix de ${escapeHtml(input.recebedor)}">
<p><label for="code">Ou use o Pix Copia e Cola:</label></p>
<textarea id="code" readonly>${escapeHtml(input.brCode)}</textarea>
<button type="button" id="copy">Copiar código</button>
<p id="copy-status" class="status" role="status" aria-live="polite"></p>
</section>`;
  const sandbox =
    input.sandbox && charge && !blocked
      ? `<aside class="sandbox" aria-label="Ambiente de testes"><strong>Ambiente de testes: nenhum valor real é cobrado.</strong>
Para simular o pagamento: <code>pixd pay ${escapeHtml(charge.txid)}</code> ou <code>POST /sandbox/pix/pay</code>.</aside>`
      : '';
  return page({
    title: `Pix para ${input.recebedor}`,
    style: QR_STYLE,
    body: `<header class="merchant"><p class="label">Pagamento Pix para</p><h1>${escapeHtml(input.recebedor)}</h1></header>
${sandbox}
<section class="card" aria-labelledby="charge-title">
<h2 id="charge-title">Cobrança</h2>
${details}
${blocked ? `<p id="notice" class="status ${blocked.kind}" role="status">${escapeHtml(blocked.text)}</p>` : ''}
</section>
${qr}`,
    script: blocked ? undefined : COPY_SCRIPT + REFRESH_SCRIPT,
  });
}
