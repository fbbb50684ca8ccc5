/**
 * Registration rules of Pix-key, recurrence and automatic-charge webhooks: the key must be the caller's,
 * the URL must pass the handshake (platform/webhooks/handshake.ts), and only then is it saved.
 */
import type { Database } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { verifyReceiver, type HandshakeCause } from '../../platform/webhooks/handshake.ts';
import type { WebhookTransport } from '../../platform/webhooks/transport.ts';
import { webhookSettings } from '../../platform/webhooks/settings.ts';
import type { Caller } from '../shared/caller.ts';
import { paginacao } from '../shared/schemas.ts';
import type { PixWebhookListQuery } from './schemas.ts';
import {
  deleteAccountWebhook,
  deletePixWebhook,
  findAccountWebhook,
  findPixWebhook,
  keyBelongsTo,
  listPixWebhooks,
  saveAccountWebhook,
  savePixWebhook,
  type AccountWebhookKind,
  type AccountWebhookRow,
  type PixWebhookRow,
} from './store.ts';

/** Problem names per kind (Bacen: WebhookOperacaoInvalida, WebhookRecOperacaoInvalida, WebhookCobROperacaoInvalida). */
export const INVALID_NAME = {
  pix: 'WebhookOperacaoInvalida',
  rec: 'WebhookRecOperacaoInvalida',
  cobr: 'WebhookCobROperacaoInvalida',
} as const;
export const LIST_INVALID = 'WebhookConsultaInvalida';
type Kind = keyof typeof INVALID_NAME;

/** The error titles a failed handshake gets, so the caller reads the cause before the detail. */
const CAUSE_TITLE: Record<HandshakeCause, string> = {
  invalid_url: 'URL do webhook inválida',
  protocol: 'A URL do webhook deve usar HTTPS',
  mtls_not_enforced: 'O servidor do webhook não exige certificado de cliente (mTLS não configurado)',
  unreachable: 'URL do webhook inacessível',
  timeout: 'Limite de tempo atingido ao chamar a URL do webhook',
  no_response: 'A URL do webhook não respondeu',
  tls: 'Falha de TLS ao chamar a URL do webhook',
  forbidden: 'Destino do webhook não permitido',
  http_status: 'A URL do webhook respondeu com código de erro HTTP',
};

export interface RegistrationDeps {
  db: Database;
  transport: WebhookTransport;
}

export const parseSkipHeader = (value: unknown) => typeof value === 'string' && value.trim().toLowerCase() === 'true';

async function handshake(
  deps: RegistrationDeps,
  kind: Kind,
  webhookUrl: string,
  skipMtlsCheck: boolean,
): Promise<void> {
  const result = await verifyReceiver(deps.transport, webhookUrl, {
    skipMtlsCheck,
    timeoutMs: webhookSettings().registrationTimeoutMs,
  });
  if (!result.ok) {
    // The way out these registrations offer (spec: Authentication 5); the account-opening webhook has none.
    const detail =
      result.cause === 'mtls_not_enforced'
        ? `${result.detail} Ou cadastre com o header x-skip-mtls-checking: true e verifique o remetente (IP e hmac na URL).`
        : result.detail;
    throw invalid(INVALID_NAME[kind], `${CAUSE_TITLE[result.cause]}. ${detail}`, [
      { property: 'webhookUrl', reason: detail, value: webhookUrl },
    ]);
  }
}

export const pixWebhookView = (row: PixWebhookRow) => ({
  webhookUrl: row.webhook_url,
  chave: row.chave,
  criacao: row.created_at.toISOString(),
});
export const accountWebhookView = (row: AccountWebhookRow) => ({
  webhookUrl: row.webhook_url,
  criacao: row.created_at.toISOString(),
});

export async function registerPixWebhook(
  deps: RegistrationDeps,
  caller: Caller,
  chave: string,
  webhookUrl: string,
  skipMtlsCheck: boolean,
) {
  // The cheap check first: no receiver is called for a key that is not the caller's.
  if (!(await keyBelongsTo(deps.db, caller.accountId, chave))) {
    throw invalid(INVALID_NAME.pix, `A chave ${chave} não é uma chave ativa desta conta.`, [
      { property: 'chave', reason: 'não corresponde a uma chave DICT pertencente a este usuário recebedor.' },
    ]);
  }
  await handshake(deps, 'pix', webhookUrl, skipMtlsCheck);
  const saved = await savePixWebhook(deps.db, {
    chave,
    account_id: caller.accountId,
    webhook_url: webhookUrl,
    skip_mtls: skipMtlsCheck,
    created_at: caller.now,
  });
  return pixWebhookView(saved);
}

const webhookNotFound = (what: string) => notFound(`Nenhum webhook cadastrado para ${what}.`, 'WebhookNaoEncontrado');

export async function readPixWebhook(db: Database, caller: Caller, chave: string) {
  const row = await findPixWebhook(db, caller.accountId, chave);
  if (!row) throw webhookNotFound(`a chave ${chave}`);
  return pixWebhookView(row);
}

export async function removePixWebhook(db: Database, caller: Caller, chave: string): Promise<void> {
  if (!(await deletePixWebhook(db, caller.accountId, chave))) throw webhookNotFound(`a chave ${chave}`);
}

export async function listPixWebhookPage(db: Database, caller: Caller, query: PixWebhookListQuery) {
  const inicio = new Date(query.inicio);
  const fim = new Date(query.fim);
  if (fim < inicio)
    throw invalid(LIST_INVALID, 'O parâmetro fim é anterior a inicio.', [
      { property: 'fim', reason: 'anterior a inicio.' },
    ]);
  const page = query['paginacao.paginaAtual'] ?? 0;
  const pageSize = query['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault;
  const { rows, total } = await listPixWebhooks(db, caller.accountId, inicio, fim, page, pageSize);
  return {
    parametros: { inicio: inicio.toISOString(), fim: fim.toISOString(), paginacao: paginacao(page, pageSize, total) },
    webhooks: rows.map(pixWebhookView),
  };
}

export async function registerAccountWebhook(
  deps: RegistrationDeps,
  caller: Caller,
  kind: AccountWebhookKind,
  webhookUrl: string,
  skipMtlsCheck: boolean,
) {
  await handshake(deps, kind, webhookUrl, skipMtlsCheck);
  const saved = await saveAccountWebhook(deps.db, {
    account_id: caller.accountId,
    kind,
    webhook_url: webhookUrl,
    skip_mtls: skipMtlsCheck,
    created_at: caller.now,
  });
  return accountWebhookView(saved);
}

/** Bacen answers NaoEncontrado for the account-level webhooks (WebhookNaoEncontrado is the per-key one). */
export async function readAccountWebhook(db: Database, caller: Caller, kind: AccountWebhookKind) {
  const row = await findAccountWebhook(db, caller.accountId, kind);
  if (!row) throw notFound(`Nenhum webhook de ${kind === 'rec' ? 'recorrência' : 'cobrança recorrente'} cadastrado.`);
  return accountWebhookView(row);
}

export async function removeAccountWebhook(db: Database, caller: Caller, kind: AccountWebhookKind): Promise<void> {
  if (!(await deleteAccountWebhook(db, caller.accountId, kind)))
    throw notFound(`Nenhum webhook de ${kind === 'rec' ? 'recorrência' : 'cobrança recorrente'} cadastrado.`);
}
