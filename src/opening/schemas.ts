/** Account-opening webhooks (/v1/webhook): request and response shapes. */
import { Type, type Static } from '@sinclair/typebox';
import { Chave, PaginationQuery, Timestamp, pageEnvelope } from '../pix/shared/schemas.ts';
import { WebhookUrl } from '../pix/webhook/schemas.ts';

const strict = { additionalProperties: false } as const;

/** Both body shapes the interface lists: {webhookUrl} and {url, chave}. */
export const OpeningWebhookBody = Type.Union([
  Type.Object({ webhookUrl: WebhookUrl }, strict),
  Type.Object({ url: WebhookUrl, chave: Type.Optional(Chave) }, strict),
]);
export type OpeningWebhookBody = Static<typeof OpeningWebhookBody>;

export const IdentificadorParams = Type.Object({ identificadorWebhook: Type.String({ minLength: 1, maxLength: 64 }) });

export const OpeningWebhookView = Type.Object({
  webhookUrl: Type.String(),
  identificadorWebhook: Type.String(),
  criacao: Timestamp,
});

export const OpeningWebhookListQuery = Type.Object(
  { inicio: Type.Optional(Timestamp), fim: Type.Optional(Timestamp), ...PaginationQuery },
  strict,
);
export type OpeningWebhookListQuery = Static<typeof OpeningWebhookListQuery>;
export const OpeningWebhookList = pageEnvelope('webhooks', OpeningWebhookView);

export const OPENING_EVENTS = ['conta_aberta', 'conta_recusada_pelo_cliente_final'] as const;
export type OpeningEvent = (typeof OPENING_EVENTS)[number];

export const IDENTIFICADOR_WEBHOOK_CHARS = 32;
