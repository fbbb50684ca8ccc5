/**
 * The bill-payment webhook (PUT/GET/DELETE /v1/webhook of the bill-payment API): one address per account, to
 * which every status change of every bill payment is POSTed (settlement.ts). Registering runs the Pix webhook's
 * handshake ("the same standard used in the Pix API", Efí's page of this webhook): HTTPS, a call without client
 * certificate the receiver must refuse, then one with it; `x-skip-mtls-checking: true` (which the SDK sends
 * unless told `validateMtls`) skips the first. Its errors are the webhook handshake's names.
 */
import type { Database } from '../../platform/db/database.ts';
import { ApiError } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { verifyReceiver } from '../../platform/webhooks/handshake.ts';
import type { WebhookTransport } from '../../platform/webhooks/transport.ts';
import { webhookSettings } from '../../platform/webhooks/settings.ts';
import { HANDSHAKE_ERRORS } from '../../opening/service.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { paginacao } from '../../pix/shared/schemas.ts';
import type { BillWebhookBody, BillWebhookListQuery } from './schemas.ts';
import { deleteBillWebhook, findBillWebhook, saveBillWebhook } from './store.ts';

export async function registerBillWebhook(
  deps: { db: Database; transport: WebhookTransport },
  caller: Caller,
  body: BillWebhookBody,
  skipMtlsCheck: boolean,
): Promise<{ url: string }> {
  const result = await verifyReceiver(deps.transport, body.url, {
    skipMtlsCheck,
    timeoutMs: webhookSettings().registrationTimeoutMs,
  });
  if (!result.ok) {
    const error = HANDSHAKE_ERRORS[result.cause];
    throw new ApiError(400, error.nome, `${error.mensagem}: ${result.detail}`);
  }
  await saveBillWebhook(deps.db, { account_id: caller.accountId, url: body.url, created_at: caller.now });
  return { url: body.url };
}

/** The account's webhook if it was registered within [dataInicio, dataFim]: a list of at most one. */
export async function listBillWebhooks(db: Database, caller: Caller, query: BillWebhookListQuery) {
  const inicio = new Date(query.dataInicio);
  const fim = new Date(query.dataFim);
  if (fim < inicio) throw new ApiError(400, 'data_invalida', 'A data fim é anterior à data inicio.');
  const page = query['paginacao.paginaAtual'] ?? 0;
  const pageSize = query['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault;
  const row = await findBillWebhook(db, caller.accountId);
  const found = row && row.created_at >= inicio && row.created_at <= fim ? [row] : [];
  return {
    parametros: {
      inicio: inicio.toISOString(),
      fim: fim.toISOString(),
      paginacao: paginacao(page, pageSize, found.length),
    },
    webhooks: found
      .slice(page * pageSize, (page + 1) * pageSize)
      .map((w) => ({ url: w.url, criacao: w.created_at.toISOString() })),
  };
}

export async function removeBillWebhook(db: Database, caller: Caller, body: BillWebhookBody): Promise<void> {
  if (!(await deleteBillWebhook(db, caller.accountId, body.url)))
    throw new ApiError(
      404,
      'webhook_nao_encontrado',
      `Nenhum webhook de pagamentos com a URL ${body.url} nesta conta.`,
    );
}
