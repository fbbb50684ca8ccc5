/** The application's Open Finance addresses (PUT/GET /v1/config), as the SDK's ofConfigUpdate/ofConfigDetail type them. */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { WebhookUrl } from '../../pix/webhook/schemas.ts';

const strict = { additionalProperties: false } as const;

export const WebhookSecurity = Type.Object(
  {
    type: Type.Union([Type.Literal('mtls'), Type.Literal('hmac')]),
    hash: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.ofHmacKeyMaxChars })),
  },
  strict,
);

export const OfConfigBody = Type.Object(
  {
    redirectURL: Type.String({ minLength: 1, maxLength: LIMITS.webhookUrlMaxChars }),
    webhookURL: WebhookUrl,
    webhookSecurity: Type.Optional(WebhookSecurity),
    processPayment: Type.Optional(Type.Union([Type.Literal('sync'), Type.Literal('async')])),
  },
  strict,
);
export type OfConfigBody = Static<typeof OfConfigBody>;

export const OfConfigView = Type.Object({
  redirectURL: Type.String(),
  webhookURL: Type.String(),
  webhookSecurity: Type.Object({ type: Type.String(), hash: Type.Optional(Type.String()) }),
  processPayment: Type.String(),
});
export type OfConfigView = Static<typeof OfConfigView>;
