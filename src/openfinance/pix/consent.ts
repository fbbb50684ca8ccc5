/**
 * The consent of an Open Finance Pix payment (consent/journey.ts): the page says who receives, how much and
 * when (now, on a date, or on each date of a recurrence); approving authorises the payment (transitions.ts),
 * declining rejects it. A biometric payment has no page: its link was authorised once (../links/).
 */
import type { Sql } from '../../platform/db/database.ts';
import { formatAmount } from '../../platform/money.ts';
import { DECLINED_REASON, type ConsentKind, type ConsentPageModel } from '../consent/journey.ts';
import { brl, ptDate } from '../consent/page.ts';
import { payerAccountText, requesterText } from '../consent/service.ts';
import { findParticipant } from '../participants/store.ts';
import { findPixPayment, type PixPaymentRow } from './store.ts';
import { authorise, expirePixIfDue, movePixPayment } from './transitions.ts';

const PRODUCT = { imediato: 'Pagamento Pix', agendado: 'Pix Agendado', recorrente: 'Pix Recorrente', biometria: 'Pix' };
/** A recurrence's dates shown one by one up to this many, then counted. */
const DATES_SHOWN = 12;

const CLOSED_TEXT: Record<string, string> = {
  pendente: 'Você autorizou este pagamento.',
  agendado: 'Você autorizou este pagamento: ele está agendado.',
  aceito: 'Você autorizou este pagamento e ele foi feito.',
  rejeitado: 'Este pagamento não foi feito.',
  cancelado: 'Este pagamento foi cancelado pelo recebedor.',
  expirado: 'Este pedido de pagamento expirou.',
  concluido: 'Todos os pagamentos desta recorrência foram processados.',
};

const pending = (row: PixPaymentRow) => row.status === 'pendente' && row.authorised_at === null;

function whenText(row: PixPaymentRow): string {
  if (row.kind === 'imediato') return 'Agora, assim que você autorizar.';
  if (row.dates.length === 1) return `Em ${ptDate(row.dates[0])}.`;
  const shown = row.dates.slice(0, DATES_SHOWN).map(ptDate).join(', ');
  const more = row.dates.length > DATES_SHOWN ? ` e mais ${row.dates.length - DATES_SHOWN} datas` : '';
  return `${row.dates.length} pagamentos: ${shown}${more}.`;
}

async function pageOf(sql: Sql, row: PixPaymentRow, sandbox: boolean): Promise<ConsentPageModel> {
  const { pagador, pagamento } = row.body;
  const requester = await requesterText(sql, row.account_id);
  const valor = brl(formatAmount(row.amount_cents));
  const descricao = pagamento.recorrencia?.descricao ?? pagamento.infoPagador;
  const rows: [string, string][] = [
    ['Quem recebe', requester.text],
    ['Valor', row.dates.length > 1 ? `${valor} em cada pagamento.` : `${valor}.`],
    ['Quando', whenText(row)],
    ...(descricao ? [['Descrição', descricao] as [string, string]] : []),
    ...(row.replaces_parcel_id !== null
      ? [['Substitui', 'Uma parcela de um Pix Recorrente que você já autorizou.'] as [string, string]]
      : []),
  ];
  return {
    product: PRODUCT[row.kind],
    participant: await findParticipant(sql, sandbox, pagador.idParticipante),
    heading: `${requester.nome} pede um ${PRODUCT[row.kind]} da sua conta`,
    rows,
    account: payerAccountText(pagador),
    login: pagador.cpf,
    ...(!pending(row) && { closed: { text: CLOSED_TEXT[row.status] ?? row.status, motivo: row.motivo } }),
  };
}

export const pixPaymentConsent: ConsentKind = {
  async load(sql, token, now, sandbox) {
    const found = await findPixPayment(sql, { consentToken: token }, true);
    if (!found) return undefined;
    const row = await expirePixIfDue(sql, found, now(found.account_id));
    return {
      accountId: row.account_id,
      page: await pageOf(sql, row, sandbox),
      pending: pending(row),
      async decide(approve, at, env) {
        if (approve) await authorise(sql, row, at, env.sandbox);
        else await movePixPayment(sql, row, 'rejeitado', DECLINED_REASON, at);
      },
    };
  },
  async outcome(sql, token) {
    const row = await findPixPayment(sql, { consentToken: token });
    if (!row || pending(row)) return undefined;
    return {
      accountId: row.account_id,
      query: {
        identificadorPagamento: row.identificador,
        status: row.status,
        ...(row.motivo !== null && { motivo: row.motivo }),
      },
    };
  },
};
