/**
 * The consent of a biometric link (consent/journey.ts): the page says who asks to start payments from the
 * account without a page each time, within which limits and for how long; approving authorises the link for
 * `LIMITS.ofLinkValidityDays`, declining rejects it.
 */
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount } from '../../platform/money.ts';
import { defineTopic } from '../../platform/outbox/jobs.ts';
import { consentExpiryHandler, DECLINED_REASON, type ConsentKind } from '../consent/journey.ts';
import { brl } from '../consent/page.ts';
import { payerAccountText, requesterText } from '../consent/service.ts';
import { findParticipant } from '../participants/store.ts';
import { expireLinkIfDue, findLink, moveLink } from './store.ts';

const DAY_MS = 86_400_000;

const CLOSED_TEXT: Record<string, string> = {
  autorizado: 'Você autorizou este vínculo.',
  rejeitado: 'Este vínculo não foi autorizado.',
  revogado: 'Este vínculo foi revogado.',
};

export const LINK_CONSENT_EXPIRY_TOPIC = defineTopic<{ id: number }>({
  name: 'of.link.consent.expire',
  handler: consentExpiryHandler(async (sql, id, now) => {
    const row = await findLink(sql, { id }, true);
    if (row) await expireLinkIfDue(sql, row, now(row.account_id));
  }),
});

export const linkConsent: ConsentKind = {
  async load(sql, token, now, sandbox) {
    const found = await findLink(sql, { consentToken: token }, true);
    if (!found) return undefined;
    const link = await expireLinkIfDue(sql, found, now(found.account_id));
    const requester = await requesterText(sql, link.account_id);
    return {
      accountId: link.account_id,
      pending: link.status === 'pendente',
      page: {
        product: 'Pix por biometria',
        participant: await findParticipant(sql, sandbox, link.pagador.idParticipante),
        heading: `${requester.nome} quer iniciar pagamentos Pix da sua conta confirmados por biometria`,
        rows: [
          ['Quem pede', requester.text],
          ['Limite por pagamento', `${brl(formatAmount(link.transaction_limit_cents))}.`],
          ['Limite por dia', `${brl(formatAmount(link.daily_limit_cents))}.`],
          ['Validade', `${LIMITS.ofLinkValidityDays} dias a partir de hoje; você pode revogar quando quiser.`],
        ],
        account: payerAccountText(link.pagador),
        login: link.cpf,
        ...(link.status !== 'pendente' && {
          closed: { text: CLOSED_TEXT[link.status] ?? link.status, motivo: link.motivo },
        }),
      },
      async decide(approve, at) {
        if (!approve) await moveLink(sql, link, 'rejeitado', DECLINED_REASON, at);
        else
          await moveLink(
            sql,
            link,
            'autorizado',
            null,
            at,
            new Date(at.getTime() + LIMITS.ofLinkValidityDays * DAY_MS),
          );
      },
    };
  },
  async outcome(sql, token) {
    const link = await findLink(sql, { consentToken: token });
    if (!link || link.status === 'pendente') return undefined;
    return {
      accountId: link.account_id,
      query: {
        identificadorVinculo: link.identificador,
        status: link.status,
        ...(link.motivo !== null && { motivo: link.motivo }),
      },
    };
  },
};
