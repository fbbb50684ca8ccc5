/** Biometric links (`/v1/pagamentos-biometria/vinculos`) as the SDK's ofCreate/ofList/ofRevokeBiometricEnrollment type them. */
import { Type, type Static } from '@sinclair/typebox';
import { PixPagador } from '../pix/schemas.ts';

const strict = { additionalProperties: false } as const;
const Identificador = Type.String({ minLength: 1, maxLength: 100 });

export const LinkBody = Type.Object({ pagador: PixPagador }, strict);
export type LinkBody = Static<typeof LinkBody>;

export const LinkCreated = Type.Object({ identificadorVinculo: Type.String(), redirectURI: Type.String() });

export const LinkListQuery = Type.Object(
  { cpf: Type.String({ pattern: '^\\d{11}$' }), cnpj: Type.Optional(Type.String({ pattern: '^\\d{14}$' })) },
  strict,
);
export type LinkListQuery = Static<typeof LinkListQuery>;

export const LinkList = Type.Object({
  vinculos: Type.Array(
    Type.Object({
      identificador: Type.String(),
      dataAutorizacao: Type.String(),
      dataExpiracao: Type.String(),
      limiteDiario: Type.String(),
      limiteTransacao: Type.String(),
      conta: Type.Object({ numero: Type.String(), agencia: Type.String(), ispb: Type.String(), tipo: Type.String() }),
      participante: Type.Object({
        identificador: Type.String(),
        nome: Type.String(),
        descricao: Type.String(),
        logo: Type.String(),
      }),
    }),
  ),
});

export const LinkRevoke = Type.Object(
  { identificadorVinculo: Identificador, motivo: Type.String({ minLength: 1, maxLength: 200 }) },
  strict,
);
export type LinkRevoke = Static<typeof LinkRevoke>;

export const LinkRevoked = Type.Object({
  identificadorVinculo: Type.String(),
  status: Type.Literal('revogado'),
  motivo: Type.String(),
  data: Type.String(),
});
