/**
 * The consent of an automatic-payment enrolment (journey.ts): the page shows the amounts, the schedule and the
 * retry policy; approving makes the enrolment `autorizado` (and its `primeiroPagamento` a payment, in the same
 * transaction), declining `rejeitado`. An unused link expires after `LIMITS.ofConsentLinkTtlSeconds`.
 */
import type { Sql } from '../../platform/db/database.ts';
import { findAccount } from '../../accounts/store.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { findEnrolment, type EnrolmentRow } from '../enrolments/store.ts';
import { expireIfDue, moveEnrolment } from '../enrolments/transitions.ts';
import { findParticipant } from '../participants/store.ts';
import { schedulePayment } from '../payments/service.ts';
import { DECLINED_REASON, type ConsentKind, type ConsentPageModel } from './journey.ts';
import { brl, maskedDocument, ptDate } from './page.ts';

const INTERVAL_TEXT: Record<string, string> = {
  SEMANAL: 'uma vez por semana',
  MENSAL: 'uma vez por mês',
  TRIMESTRAL: 'uma vez a cada três meses',
  SEMESTRAL: 'uma vez a cada seis meses',
  ANUAL: 'uma vez por ano',
};

type Automatico = EnrolmentRow['body']['assinatura']['configuracao']['automatico'];

function amountText(auto: Automatico): string {
  if (auto.valorFixo) return `Valor fixo de ${brl(auto.valorFixo)} por cobrança.`;
  if (auto.valorMinimo && auto.valorMaximo)
    return `Entre ${brl(auto.valorMinimo)} e ${brl(auto.valorMaximo)} por cobrança.`;
  if (auto.valorMaximo) return `Até ${brl(auto.valorMaximo)} por cobrança.`;
  return `A partir de ${brl(auto.valorMinimo!)} por cobrança (sem limite máximo).`;
}

const CLOSED_TEXT: Record<string, string> = {
  autorizado: 'Você autorizou este Pix Automático.',
  rejeitado: 'Este pedido de Pix Automático não foi autorizado.',
  revogado: 'Este Pix Automático foi cancelado pelo recebedor.',
  finalizado: 'Este Pix Automático terminou.',
};

/** Who asks: the application's account, its name and masked document. */
export async function requesterText(sql: Sql, accountId: number): Promise<{ nome: string; text: string }> {
  const account = (await findAccount(sql, accountId))!;
  const kind = account.documento.length === 14 ? 'CNPJ' : 'CPF';
  return { nome: account.nome, text: `${account.nome} (${kind} ${maskedDocument(account.documento)})` };
}

/** The payer's account as the institution names it: name (if given) and masked document. */
export const payerAccountText = (pagador: { nome?: string; cpf?: string; cnpj?: string }) =>
  `${pagador.nome ? `${pagador.nome}, ` : ''}${pagador.cnpj ? 'CNPJ' : 'CPF'} ${maskedDocument((pagador.cnpj ?? pagador.cpf)!)}`;

async function pageOf(sql: Sql, enrolment: EnrolmentRow, sandbox: boolean): Promise<ConsentPageModel> {
  const { pagador, assinatura } = enrolment.body;
  const auto = assinatura.configuracao.automatico;
  const first = auto.primeiroPagamento;
  const requester = await requesterText(sql, enrolment.account_id);
  const rows: [string, string][] = [
    ['Quem pede', requester.text],
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
  return {
    product: 'Pix Automático',
    participant: await findParticipant(sql, sandbox, pagador.idParticipante),
    heading: `${requester.nome} quer fazer cobranças automáticas na sua conta`,
    rows,
    account: payerAccountText(pagador),
    login: (pagador.cpf ?? pagador.cnpj)!,
    ...(enrolment.status !== 'pendente' && {
      closed: { text: CLOSED_TEXT[enrolment.status] ?? enrolment.status, motivo: enrolment.motivo },
    }),
  };
}

export const enrolmentConsent: ConsentKind = {
  async load(sql, token, now, sandbox) {
    const found = await findEnrolment(sql, { consentToken: token }, true);
    if (!found) return undefined;
    const enrolment = await expireIfDue(sql, found, now(found.account_id));
    return {
      accountId: enrolment.account_id,
      page: await pageOf(sql, enrolment, sandbox),
      pending: enrolment.status === 'pendente',
      async decide(approve, at, env) {
        if (!approve) {
          await moveEnrolment(sql, enrolment, 'rejeitado', DECLINED_REASON, at);
          return;
        }
        const moved = await moveEnrolment(sql, enrolment, 'autorizado', null, at);
        const first = moved.body.assinatura.configuracao.automatico.primeiroPagamento;
        if (!first) return;
        const caller: Caller = { accountId: moved.account_id, now: at, publicUrl: env.publicUrl, chargeCreated: [] };
        await schedulePayment(sql, caller, moved, first, env.sandbox, { first: true });
      },
    };
  },
  async outcome(sql, token) {
    const enrolment = await findEnrolment(sql, { consentToken: token });
    if (!enrolment || enrolment.status === 'pendente') return undefined;
    return {
      accountId: enrolment.account_id,
      query: {
        identificadorAdesao: enrolment.identificador,
        status: enrolment.status,
        ...(enrolment.motivo !== null && { motivo: enrolment.motivo }),
      },
    };
  },
};
