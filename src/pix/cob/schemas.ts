import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { PixView } from '../received/schemas.ts';
import {
  Amount,
  Chave,
  ChargeListQueryFields,
  Cnpj,
  Cpf,
  DevedorBase,
  InfoAdicionais,
  LocRef,
  LocView,
  SolicitacaoPagador,
  StatusCobranca,
  Timestamp,
  Txid,
  pageEnvelope,
} from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

const Expiracao = Type.Integer({
  minimum: 1,
  maximum: LIMITS.cobExpiracaoMaxSeconds,
  description: 'Seconds after criacao during which the charge can be paid.',
});
const Devedor = Type.Object(DevedorBase, strict);
const Valor = Type.Object(
  { original: Amount, modalidadeAlteracao: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])) },
  strict,
);

const cobFields = {
  calendario: Type.Optional(Type.Object({ expiracao: Type.Optional(Expiracao) }, strict)),
  devedor: Type.Optional(Devedor),
  loc: Type.Optional(LocRef),
  valor: Valor,
  chave: Chave,
  solicitacaoPagador: Type.Optional(SolicitacaoPagador),
  infoAdicionais: Type.Optional(InfoAdicionais),
};

export const CobCreate = Type.Object(cobFields, strict);
export type CobCreate = Static<typeof CobCreate>;

export const CobPatch = Type.Object(
  {
    ...Type.Partial(Type.Object(cobFields)).properties,
    valor: Type.Optional(Type.Partial(Valor, strict)),
    status: Type.Optional(Type.Literal('REMOVIDA_PELO_USUARIO_RECEBEDOR')),
  },
  strict,
);
export type CobPatch = Static<typeof CobPatch>;

/** What is stored per revision: the request fields, normalised (defaults filled, loc kept apart). */
export interface CobBody {
  calendario: { expiracao: number };
  devedor?: Static<typeof Devedor>;
  valor: Static<typeof Valor>;
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: Static<typeof InfoAdicionais>;
}

export const CobView = Type.Object({
  calendario: Type.Object({ criacao: Timestamp, expiracao: Type.Integer() }),
  txid: Type.String(),
  revisao: Type.Integer(),
  loc: Type.Optional(LocView),
  location: Type.Optional(Type.String()),
  status: StatusCobranca,
  devedor: Type.Optional(
    Type.Object({ cpf: Type.Optional(Cpf), cnpj: Type.Optional(Cnpj), nome: Type.Optional(Type.String()) }),
  ),
  valor: Type.Object({ original: Type.String(), modalidadeAlteracao: Type.Optional(Type.Integer()) }),
  chave: Type.String(),
  solicitacaoPagador: Type.Optional(Type.String()),
  infoAdicionais: Type.Optional(Type.Array(Type.Object({ nome: Type.String(), valor: Type.String() }))),
  pixCopiaECola: Type.Optional(Type.String()),
  pix: Type.Optional(Type.Array(PixView)),
});
export type CobView = Static<typeof CobView>;

export const CobListQuery = Type.Object(ChargeListQueryFields, strict);
export type CobListQuery = Static<typeof CobListQuery>;

export const CobList = pageEnvelope('cobs', CobView);

export const V1CobCreate = Type.Object({ ...cobFields, txid: Type.Optional(Txid) }, strict);
export type V1CobCreate = Static<typeof V1CobCreate>;
