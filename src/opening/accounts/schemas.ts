/** Simplified accounts (/v1/conta-simplificada): request and response shapes, as the official SDK's JSDoc has them. */
import { Type, type Static } from '@sinclair/typebox';

const strict = { additionalProperties: false } as const;
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
// São Paulo first: the generated OpenAPI example takes the first.
const UFS = 'SP AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SE TO'.split(' ');

export const SimplifiedAccountBody = Type.Object(
  {
    clienteFinal: Type.Object(
      {
        cpf: Type.String({ pattern: '^\\d{11}$' }),
        nomeCompleto: text(200),
        dataNascimento: Type.String({ format: 'date' }),
        nomeMae: Type.Optional(text(200)),
        celular: Type.String({ pattern: '^\\d{10,11}$' }),
        email: Type.String({ format: 'email', maxLength: 200 }),
        cnpj: Type.Optional(Type.String({ pattern: '^\\d{14}$' })),
        razaoSocial: Type.Optional(text(200)),
        endereco: Type.Object(
          {
            cep: Type.String({ pattern: '^\\d{8}$' }),
            estado: Type.Union(UFS.map((uf) => Type.Literal(uf))),
            cidade: text(100),
            bairro: text(100),
            logradouro: text(150),
            numero: text(20),
            complemento: Type.Optional(text(100)),
          },
          strict,
        ),
      },
      strict,
    ),
    meioDeNotificacao: Type.Array(Type.Union([Type.Literal('sms'), Type.Literal('whatsapp')]), {
      minItems: 1,
      maxItems: 2,
      uniqueItems: true,
    }),
    escoposIntegrados: Type.Array(text(100), { minItems: 1, maxItems: 100 }),
  },
  strict,
);
export type SimplifiedAccountBody = Static<typeof SimplifiedAccountBody>;

export const SimplifiedAccountParams = Type.Object({
  idContaSimplificada: Type.String({ minLength: 1, maxLength: 64 }),
});

export const SimplifiedAccountCreated = Type.Object({
  contaSimplificada: Type.Object({ identificador: Type.String() }),
  id: Type.String(),
  status: Type.String(),
});

export const SimplifiedAccountCertificate = Type.Object({
  /** PEM: the certificate followed by its private key (one file, as Efí hands it out). */
  certificado: Type.String(),
});

export const SimplifiedAccountCredentials = Type.Object({
  clientId: Type.String(),
  /** Answered once, on the first read; never stored, so later reads leave it out. */
  clientSecret: Type.Optional(Type.String()),
  conta: Type.Object({ numero: Type.String(), payeeCode: Type.String() }),
  escopos: Type.Array(Type.String()),
  ativo: Type.Boolean(),
});

export const SIMPLIFIED_ACCOUNT_ID_CHARS = 32;
