/** Payload locations (Bacen PayloadLocation*). */
import { Type, type Static } from '@sinclair/typebox';
import { LocView, PaginationQuery, Timestamp, pageEnvelope } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;
const TipoCob = Type.Union([Type.Literal('cob'), Type.Literal('cobv')]);

export const LocCreate = Type.Object({ tipoCob: TipoCob }, strict);
export type LocCreate = Static<typeof LocCreate>;

/** Bacen PayloadLocationCompleta: `txid` only while a charge uses the location. */
export const LocCompleta = Type.Object({ ...LocView.properties, txid: Type.Optional(Type.String()) });
export type LocCompleta = Static<typeof LocCompleta>;

/** Text, as in Bacen: an id that is not a number is simply not found (404), not a malformed request. */
export const LocIdParams = Type.Object({ id: Type.String() });

export const LocListQuery = Type.Object(
  {
    inicio: Timestamp,
    fim: Timestamp,
    txIdPresente: Type.Optional(Type.Boolean()),
    tipoCob: Type.Optional(TipoCob),
    ...PaginationQuery,
  },
  strict,
);
export type LocListQuery = Static<typeof LocListQuery>;

export const LocList = pageEnvelope('loc', LocCompleta, {
  txIdPresente: Type.Optional(Type.Boolean()),
  tipoCob: Type.Optional(TipoCob),
});

export const LocQrCode = Type.Object({
  qrcode: Type.String({ description: 'The dynamic BR code (copy and paste) pointing at the location.' }),
  imagemQrcode: Type.String({ description: 'PNG image of the QR code as a data URL.' }),
  linkVisualizacao: Type.String({ description: 'Public page showing the QR code and the copy-and-paste text.' }),
});
export type LocQrCode = Static<typeof LocQrCode>;
