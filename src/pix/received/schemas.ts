import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { END_TO_END_ID_PATTERN } from '../../platform/institution.ts';
import { Amount, Cnpj, Cpf, PaginationQuery, Timestamp, Txid, pageEnvelope } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

export const E2eParams = Type.Object({ e2eid: Type.String({ pattern: END_TO_END_ID_PATTERN }) });
export const RefundParams = Type.Object({
  e2eid: Type.String({ pattern: END_TO_END_ID_PATTERN }),
  id: Type.String({ pattern: `^[a-zA-Z0-9]{1,${LIMITS.refundIdMaxChars}}$` }),
});

export const RefundRequest = Type.Object(
  {
    valor: Amount,
    natureza: Type.Optional(Type.Union([Type.Literal('ORIGINAL'), Type.Literal('RETIRADA')])),
    descricao: Type.Optional(Type.String({ maxLength: LIMITS.refundDescricaoMaxChars })),
  },
  strict,
);
export type RefundRequest = Static<typeof RefundRequest>;

export const RefundView = Type.Object({
  id: Type.String(),
  rtrId: Type.String(),
  valor: Type.String(),
  natureza: Type.String(),
  descricao: Type.Optional(Type.String()),
  horario: Type.Object({ solicitacao: Timestamp, liquidacao: Type.Optional(Timestamp) }),
  status: Type.Union([Type.Literal('EM_PROCESSAMENTO'), Type.Literal('DEVOLVIDO'), Type.Literal('NAO_REALIZADO')]),
  motivo: Type.Optional(Type.String()),
});

const ComponentValue = Type.Object({ valor: Type.String() });

export const PixView = Type.Object({
  endToEndId: Type.String(),
  txid: Type.Optional(Type.String()),
  valor: Type.String(),
  componentesValor: Type.Optional(
    Type.Object({
      original: Type.Optional(ComponentValue),
      juros: Type.Optional(ComponentValue),
      multa: Type.Optional(ComponentValue),
      abatimento: Type.Optional(ComponentValue),
      desconto: Type.Optional(ComponentValue),
    }),
  ),
  chave: Type.Optional(Type.String()),
  horario: Timestamp,
  pagador: Type.Object({ cpf: Type.Optional(Type.String()), cnpj: Type.Optional(Type.String()), nome: Type.String() }),
  infoPagador: Type.Optional(Type.String()),
  devolucoes: Type.Array(RefundView),
});

export const PixListQuery = Type.Object(
  {
    inicio: Timestamp,
    fim: Timestamp,
    txid: Type.Optional(Txid),
    txIdPresente: Type.Optional(Type.Boolean()),
    devolucaoPresente: Type.Optional(Type.Boolean()),
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    ...PaginationQuery,
  },
  strict,
);
export type PixListQuery = Static<typeof PixListQuery>;

export const PixList = pageEnvelope('pix', PixView);
