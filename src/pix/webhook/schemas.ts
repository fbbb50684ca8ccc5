/** Request and response shapes of the Pix, recurrence and automatic-charge webhook routes (Bacen Webhook*). */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { Chave, PaginationQuery, Timestamp, pageEnvelope } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

/** Checked as text here; what makes it acceptable (HTTPS, reachable, mTLS) is the service's handshake. */
export const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: LIMITS.webhookUrlMaxChars,
  description: 'HTTPS URL of the receiver; a query (hmac, ignorar=) is kept verbatim.',
});

export const WebhookBody = Type.Object({ webhookUrl: WebhookUrl }, strict);
export type WebhookBody = Static<typeof WebhookBody>;

export const SkipMtlsHeaders = Type.Object({
  'x-skip-mtls-checking': Type.Optional(
    Type.String({ description: '`true` skips the call without client certificate at registration.' }),
  ),
});

export const ChaveParams = Type.Object({ chave: Chave });

export const PixWebhookView = Type.Object({ webhookUrl: Type.String(), chave: Type.String(), criacao: Timestamp });
export const AccountWebhookView = Type.Object({ webhookUrl: Type.String(), criacao: Timestamp });
export const PixWebhookSaved = Type.Object({ webhookUrl: Type.String(), chave: Type.String(), criacao: Timestamp });

export const PixWebhookListQuery = Type.Object({ inicio: Timestamp, fim: Timestamp, ...PaginationQuery }, strict);
export type PixWebhookListQuery = Static<typeof PixWebhookListQuery>;
export const PixWebhookList = pageEnvelope('webhooks', PixWebhookView);

export const RESEND_TIPOS = ['PIX_RECEBIDO', 'PIX_ENVIADO', 'DEVOLUCAO_RECEBIDA', 'DEVOLUCAO_ENVIADA'] as const;

export const ResendBody = Type.Object(
  {
    tipo: Type.Union(RESEND_TIPOS.map((t) => Type.Literal(t))),
    e2eids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: LIMITS.webhookResendMaxE2eids,
    }),
  },
  strict,
);
export type ResendBody = Static<typeof ResendBody>;
