/**
 * Account-opening webhooks (spec: Account-opening webhook; Authentication 6). Registration requires HTTPS
 * and mutual TLS actually enforced by the receiver: the handshake's first call (without certificate) is
 * never skipped here. Every failure has the spec's error name, in the named format.
 */
import type { Database } from '../platform/db/database.ts';
import { ApiError, type ErrorNameWithStatus } from '../platform/errors.ts';
import { LIMITS } from '../platform/limits.ts';
import { randomAlphanumeric } from '../platform/ids.ts';
import { verifyReceiver, type HandshakeCause } from '../platform/webhooks/handshake.ts';
import type { WebhookTransport } from '../platform/webhooks/transport.ts';
import { webhookSettings } from '../platform/webhooks/settings.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { paginacao } from '../pix/shared/schemas.ts';
import { keyBelongsTo } from '../pix/webhook/store.ts';
import { IDENTIFICADOR_WEBHOOK_CHARS, type OpeningWebhookBody, type OpeningWebhookListQuery } from './schemas.ts';
import {
  deleteOpeningWebhook,
  findOpeningWebhook,
  insertOpeningWebhook,
  listOpeningWebhooks,
  urlRegistered,
  type OpeningWebhookRow,
} from './store.ts';

/** The spec's /v1/webhook error names, by handshake cause (the bill-payment webhook answers them too). */
export const HANDSHAKE_ERRORS: Record<HandshakeCause, { nome: ErrorNameWithStatus<400>; mensagem: string }> = {
  invalid_url: { nome: 'url_webhook', mensagem: 'URL do webhook inválida' },
  protocol: { nome: 'protocolo_da_url', mensagem: 'A URL do webhook deve usar o protocolo HTTPS' },
  mtls_not_enforced: {
    nome: 'mtls_nao_configurado',
    mensagem: 'O servidor da URL não exige certificado de cliente (mTLS não configurado)',
  },
  unreachable: { nome: 'url_inacessivel', mensagem: 'A URL do webhook está inacessível' },
  timeout: {
    nome: 'limite_de_tempo_atingido_para_url',
    mensagem: 'A URL do webhook não respondeu dentro do limite de tempo',
  },
  tls: { nome: 'url_falhou_com_erro', mensagem: 'A chamada à URL do webhook falhou com erro' },
  forbidden: { nome: 'url_destino_nao_permitido', mensagem: 'A URL do webhook aponta para um destino não permitido' },
  http_status: { nome: 'erro_de_codigo', mensagem: 'A URL do webhook respondeu com código de erro HTTP' },
  no_response: { nome: 'url_informada_nao_existe', mensagem: 'A URL informada não responde' },
};

export const WEBHOOK_UNKNOWN = 'identificador_webhook';

export interface OpeningDeps {
  db: Database;
  transport: WebhookTransport;
}

export const openingWebhookView = (row: OpeningWebhookRow) => ({
  webhookUrl: row.webhook_url,
  identificadorWebhook: row.id,
  criacao: row.created_at.toISOString(),
});

export async function registerOpeningWebhook(
  deps: OpeningDeps,
  caller: Caller,
  body: OpeningWebhookBody,
): Promise<{ identificadorWebhook: string }> {
  const webhookUrl = 'webhookUrl' in body ? body.webhookUrl : body.url;
  const chave = 'chave' in body ? (body.chave ?? null) : null;
  if (chave !== null && !(await keyBelongsTo(deps.db, caller.accountId, chave))) {
    throw new ApiError(400, 'chave_invalida', `A chave ${chave} não é uma chave ativa desta conta.`);
  }
  if (await urlRegistered(deps.db, caller.accountId, webhookUrl))
    throw new ApiError(409, 'url_cadastrada', 'Esta URL já está cadastrada como webhook desta conta.');
  const result = await verifyReceiver(deps.transport, webhookUrl, {
    skipMtlsCheck: false,
    timeoutMs: webhookSettings().registrationTimeoutMs,
  });
  if (!result.ok) {
    const error = HANDSHAKE_ERRORS[result.cause];
    throw new ApiError(400, error.nome, `${error.mensagem}: ${result.detail}`);
  }
  const saved = await insertOpeningWebhook(deps.db, {
    id: randomAlphanumeric(IDENTIFICADOR_WEBHOOK_CHARS),
    account_id: caller.accountId,
    webhook_url: webhookUrl,
    chave,
    created_at: caller.now,
  });
  // Registered by a concurrent request while this one ran its handshake.
  if (!saved) throw new ApiError(409, 'url_cadastrada', 'Esta URL já está cadastrada como webhook desta conta.');
  return { identificadorWebhook: saved.id };
}

const unknownWebhook = (id: string) =>
  new ApiError(404, WEBHOOK_UNKNOWN, `Nenhum webhook com identificador ${id} nesta conta.`);

export async function readOpeningWebhook(db: Database, caller: Caller, id: string) {
  const row = await findOpeningWebhook(db, caller.accountId, id);
  if (!row) throw unknownWebhook(id);
  return openingWebhookView(row);
}

export async function removeOpeningWebhook(db: Database, caller: Caller, id: string): Promise<void> {
  if (!(await deleteOpeningWebhook(db, caller.accountId, id))) throw unknownWebhook(id);
}

/** Without `inicio`/`fim` the list covers every registration up to now. */
export async function listOpeningWebhookPage(db: Database, caller: Caller, query: OpeningWebhookListQuery) {
  const inicio = query.inicio ? new Date(query.inicio) : new Date(0);
  const fim = query.fim ? new Date(query.fim) : caller.now;
  if (fim < inicio) throw new ApiError(400, 'data_invalida', 'A data fim é anterior à data inicio.');
  const page = query['paginacao.paginaAtual'] ?? 0;
  const pageSize = query['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault;
  const { rows, total } = await listOpeningWebhooks(db, caller.accountId, inicio, fim, page, pageSize);
  return {
    parametros: { inicio: inicio.toISOString(), fim: fim.toISOString(), paginacao: paginacao(page, pageSize, total) },
    webhooks: rows.map(openingWebhookView),
  };
}
