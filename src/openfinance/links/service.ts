/**
 * Biometric links (vínculos): created `pendente` with a consent link the payer opens once at their
 * institution's page; once `autorizado`, payments on the link need no page (../pix/service.ts,
 * startBiometricPayment) within its limits; the application lists a payer's active links and revokes them.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount } from '../../platform/money.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { findOfConfig } from '../config/store.ts';
import { consentUri, enqueueConsentExpiryJob, newConsentLink } from '../consent/journey.ts';
import { ENROLMENT_ID_PREFIX } from '../enrolments/service.ts';
import { findParticipant } from '../participants/store.ts';
import { checkPagador } from '../pix/service.ts';
import { ofError } from '../shared.ts';
import { LINK_CONSENT_EXPIRY_TOPIC } from './consent.ts';
import type { LinkBody, LinkListQuery, LinkRevoke } from './schemas.ts';
import { activeLinks, expireLinkIfDue, findLink, insertLink, moveLink, type LinkRow } from './store.ts';

export async function createLink(
  sql: Sql,
  caller: Caller,
  body: LinkBody,
  sandbox: boolean,
  idempotencyKey?: string,
): Promise<{ identificadorVinculo: string; redirectURI: string }> {
  const answer = (row: LinkRow) => ({
    identificadorVinculo: row.identificador,
    redirectURI: consentUri(caller.publicUrl, row.consent_token),
  });
  const byKey = () =>
    idempotencyKey === undefined ? undefined : findLink(sql, { accountId: caller.accountId, idempotencyKey });
  const earlier = await byKey();
  if (earlier) return answer(earlier);
  if (!(await findOfConfig(sql, caller.accountId)))
    throw ofError(
      422,
      'configuracao_ausente',
      'Nenhum endereço de retorno configurado: envie PUT /v1/config com redirectURL antes de criar vínculos.',
    );
  await checkPagador(sql, body.pagador, sandbox, 'vinculo_invalido');
  const row = await insertLink(sql, {
    account_id: caller.accountId,
    identificador: `${ENROLMENT_ID_PREFIX}${randomUUID()}`,
    status: 'pendente',
    pagador: body.pagador,
    cpf: body.pagador.cpf,
    cnpj: body.pagador.cnpj ?? null,
    transaction_limit_cents: LIMITS.ofLinkTransactionLimitCents,
    daily_limit_cents: LIMITS.ofLinkDailyLimitCents,
    ...newConsentLink(caller.now),
    idempotency_key: idempotencyKey ?? null,
    created_at: caller.now,
  });
  if (!row) return answer((await byKey())!);
  await enqueueConsentExpiryJob(sql, LINK_CONSENT_EXPIRY_TOPIC, row, caller.now);
  return answer(row);
}

/**
 * The payer's account at their institution as the link names it. No real institution is behind it, so it is
 * derived from the payer's document: stable, and not the document itself.
 */
function payerAccount(link: LinkRow, ispb: string) {
  const digits = BigInt(
    `0x${createHash('sha256')
      .update(link.cnpj ?? link.cpf)
      .digest('hex')
      .slice(0, 12)}`,
  );
  return { numero: String(digits % 100_000_000n).padStart(8, '0'), agencia: '0001', ispb, tipo: 'CACC' };
}

export async function listLinks(sql: Sql, caller: Caller, query: LinkListQuery, sandbox: boolean) {
  const rows = await activeLinks(sql, caller.accountId, query, caller.now);
  const vinculos = [];
  for (const link of rows) {
    const participant = await findParticipant(sql, sandbox, link.pagador.idParticipante);
    vinculos.push({
      identificador: link.identificador,
      dataAutorizacao: link.authorised_at!.toISOString(),
      dataExpiracao: link.expires_at!.toISOString(),
      limiteDiario: formatAmount(link.daily_limit_cents),
      limiteTransacao: formatAmount(link.transaction_limit_cents),
      conta: payerAccount(link, participant?.ispb ?? ''),
      participante: {
        identificador: link.pagador.idParticipante,
        nome: participant?.nome ?? '',
        descricao: participant?.descricao ?? '',
        logo: participant?.logo ?? '',
      },
    });
  }
  return { vinculos };
}

/** From `pendente` or `autorizado`; payments already made on the link stay as they are. */
export async function revokeLink(sql: Sql, caller: Caller, body: LinkRevoke) {
  const found = await findLink(sql, { accountId: caller.accountId, identificador: body.identificadorVinculo }, true);
  if (!found) throw ofError(404, 'vinculo_nao_encontrado', `Vínculo ${body.identificadorVinculo} não encontrado.`);
  const link = await expireLinkIfDue(sql, found, caller.now);
  if (link.status !== 'pendente' && link.status !== 'autorizado')
    throw ofError(
      422,
      'vinculo_nao_revogavel',
      `O vínculo está ${link.status}: só um vínculo pendente ou autorizado é revogado.`,
    );
  const moved = await moveLink(sql, link, 'revogado', body.motivo, caller.now);
  return {
    identificadorVinculo: moved.identificador,
    status: 'revogado' as const,
    motivo: body.motivo,
    data: caller.now.toISOString(),
  };
}
