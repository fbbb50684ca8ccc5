/** Static BR codes and the decoding of any BR code (Efí /v2/gn/qrcodes extensions). */
import { Type, type Static } from '@sinclair/typebox';
import { STATIC_TXID_MAX_CHARS } from '../../platform/brcode.ts';
import { LIMITS } from '../../platform/limits.ts';
import { Amount, Chave } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

export const StaticCreate = Type.Object(
  {
    chave: Chave,
    valor: Type.Optional(Amount),
    txid: Type.Optional(
      Type.String({
        pattern: `^[a-zA-Z0-9]{1,${STATIC_TXID_MAX_CHARS}}$`,
        description: 'Up to 25 letters and digits (BR code ID 62-05).',
      }),
    ),
    infoAdicional: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LIMITS.staticInfoAdicionalMaxChars,
        description: 'Shown to the payer (BR code ID 26-02).',
      }),
    ),
  },
  strict,
);
export type StaticCreate = Static<typeof StaticCreate>;

export const StaticView = Type.Object({ qrcode: Type.String(), imagemQrcode: Type.String() });
export type StaticView = Static<typeof StaticView>;

export const DetailRequest = Type.Object(
  { pixCopiaECola: Type.String({ minLength: 1, maxLength: LIMITS.pixCopiaEColaMaxChars }) },
  strict,
);
export type DetailRequest = Static<typeof DetailRequest>;

const Recebedor = Type.Object({ nome: Type.String(), cidade: Type.String() });

export const StaticDetail = Type.Object({
  tipo: Type.Literal('estatico'),
  chave: Type.String(),
  valor: Type.Optional(Type.String()),
  txid: Type.Optional(Type.String()),
  infoAdicional: Type.Optional(Type.String()),
  recebedor: Recebedor,
});
export type StaticDetail = Static<typeof StaticDetail>;

/** The payload of the charge, spread as the official SDK's pixQrCodeDetail returns it, plus `tipo`. */
export const DynamicDetail = Type.Object(
  { tipo: Type.Literal('dinamico'), tipoCob: Type.Union([Type.Literal('cob'), Type.Literal('cobv')]) },
  { additionalProperties: true },
);

export const Detail = Type.Union([StaticDetail, DynamicDetail]);
