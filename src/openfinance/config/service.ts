/**
 * The application's addresses: where the payer's browser returns after consent (`redirectURL`) and where
 * status changes are POSTed (`webhookURL`, mutual TLS unless `hmac` is chosen). Enrolment needs them first.
 */
import type { Sql } from '../../platform/db/database.ts';
import { checkWebhookUrl, isUrlProblem } from '../../platform/webhooks/urls.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { ofError, ofInvalid } from '../shared.ts';
import type { OfConfigBody, OfConfigView } from './schemas.ts';
import { findOfConfig, saveOfConfig, type OfConfigRow } from './store.ts';

const INVALID = 'configuracao_invalida';

/** The redirect is followed by a person's browser: http(s) only, absolute, no credentials or fragment. */
function checkRedirectUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw ofInvalid(INVALID, 'redirectURL', 'não é uma URL absoluta válida.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw ofInvalid(INVALID, 'redirectURL', 'deve usar https (ou http).');
  if (url.username || url.password || url.hash)
    throw ofInvalid(INVALID, 'redirectURL', 'não pode conter usuário, senha ou fragmento (#).');
}

export function viewOf(row: OfConfigRow): OfConfigView {
  return {
    redirectURL: row.redirect_url,
    webhookURL: row.webhook_url,
    webhookSecurity: { type: row.webhook_security, ...(row.hmac_key !== null && { hash: row.hmac_key }) },
    processPayment: row.process_payment,
  };
}

export async function updateOfConfig(sql: Sql, caller: Caller, body: OfConfigBody): Promise<OfConfigView> {
  checkRedirectUrl(body.redirectURL);
  const webhook = checkWebhookUrl(body.webhookURL);
  if (isUrlProblem(webhook)) throw ofInvalid(INVALID, 'webhookURL', webhook.detail);
  const security = body.webhookSecurity?.type ?? 'mtls';
  if (security === 'hmac' && !body.webhookSecurity?.hash)
    throw ofInvalid(INVALID, 'webhookSecurity.hash', 'obrigatório quando type é hmac (a chave da assinatura).');
  const row: OfConfigRow = {
    account_id: caller.accountId,
    redirect_url: body.redirectURL,
    webhook_url: body.webhookURL,
    webhook_security: security,
    hmac_key: security === 'hmac' ? body.webhookSecurity!.hash! : null,
    process_payment: body.processPayment ?? 'sync',
  };
  await saveOfConfig(sql, row, caller.now);
  return viewOf(row);
}

export async function readOfConfig(sql: Sql, caller: Caller): Promise<OfConfigView> {
  const row = await findOfConfig(sql, caller.accountId);
  if (!row) throw ofError(404, 'configuracao_nao_encontrada', 'Nenhuma configuração: envie PUT /v1/config primeiro.');
  return viewOf(row);
}
