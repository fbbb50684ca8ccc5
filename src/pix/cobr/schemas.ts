/** Recurring charges of automatic Pix (Bacen CobR*: CobRSolicitada, CobRRevisada, CobRCompleta). */
import { Type, type Static } from '@sinclair/typebox';
import { CalendarDate } from '../cobv/schemas.ts';
import { RecId } from '../rec/schemas.ts';
import { Amount, Cnpj, Cpf, PaginationQuery, Timestamp, Txid, pageEnvelope } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

export const COBR_STATUS = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'] as const;
export type CobrStatus = (typeof COBR_STATUS)[number];
const StatusCobr = Type.Union([
  Type.Literal('CRIADA'),
  Type.Literal('ATIVA'),
  Type.Literal('CONCLUIDA'),
  Type.Literal('EXPIRADA'),
  Type.Literal('REJEITADA'),
  Type.Literal('CANCELADA'),
]);

const Devedor = Type.Object(
  {
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    nome: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
    email: Type.Optional(Type.String({ maxLength: 77 })),
    logradouro: Type.Optional(Type.String({ maxLength: 200 })),
    cidade: Type.Optional(Type.String({ maxLength: 200 })),
    uf: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    cep: Type.Optional(Type.String({ pattern: '^\\d{8}$' })),
  },
  strict,
);

const Recebedor = Type.Object(
  {
    conta: Type.String({ pattern: '^\\d{1,20}$' }),
    tipoConta: Type.Union([Type.Literal('CORRENTE'), Type.Literal('POUPANCA'), Type.Literal('PAGAMENTO')]),
    agencia: Type.Optional(Type.String({ pattern: '^\\d{1,4}$' })),
  },
  strict,
);

/** Bacen CobRSolicitada (PUT /cobr/{txid} and POST /cobr). */
export const CobrCreate = Type.Object(
  {
    idRec: RecId,
    infoAdicional: Type.Optional(Type.String({ maxLength: 140 })),
    calendario: Type.Object({ dataDeVencimento: CalendarDate }, strict),
    valor: Type.Object({ original: Amount }, strict),
    ajusteDiaUtil: Type.Optional(Type.Boolean({ default: true })),
    recebedor: Recebedor,
    devedor: Type.Optional(Devedor),
  },
  strict,
);
export type CobrCreate = Static<typeof CobrCreate>;

/** Bacen CobRRevisada: the receiver may only cancel. */
export const CobrPatch = Type.Object({ status: Type.Literal('CANCELADA') }, strict);

export const TENTATIVA_STATUS = ['SOLICITADA', 'AGENDADA', 'PAGA', 'CANCELADA', 'REJEITADA', 'EXPIRADA'] as const;

export const Tentativa = Type.Object({
  dataLiquidacao: Type.String(),
  tipo: Type.String(),
  status: Type.String(),
  endToEndId: Type.String(),
  atualizacao: Type.Array(Type.Object({ status: Type.String(), data: Timestamp })),
  rejeicao: Type.Optional(Type.Object({ codigo: Type.String(), descricao: Type.String() })),
});

const PixAutomatico = Type.Object({
  endToEndId: Type.String(),
  txid: Type.String(),
  valor: Type.String(),
  horario: Timestamp,
});

/** Bacen CobRCompleta. */
export const CobrCompleta = Type.Object({
  idRec: Type.String(),
  txid: Type.String(),
  infoAdicional: Type.Optional(Type.String()),
  calendario: Type.Object({ criacao: Type.String(), dataDeVencimento: Type.String() }),
  valor: Type.Object({ original: Type.String() }),
  ajusteDiaUtil: Type.Boolean(),
  recebedor: Type.Object({
    conta: Type.String(),
    tipoConta: Type.String(),
    agencia: Type.Optional(Type.String()),
    cpf: Type.Optional(Type.String()),
    cnpj: Type.Optional(Type.String()),
    nome: Type.String(),
  }),
  devedor: Type.Optional(Type.Record(Type.String(), Type.String())),
  status: StatusCobr,
  politicaRetentativa: Type.String(),
  pix: Type.Optional(Type.Array(PixAutomatico)),
  atualizacao: Type.Array(Type.Object({ status: StatusCobr, data: Timestamp })),
  encerramento: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  tentativas: Type.Array(Tentativa),
});
export type CobrCompleta = Static<typeof CobrCompleta>;

export const CobrTxidParams = Type.Object({ txid: Txid });
export const RetryParams = Type.Object({ txid: Txid, data: CalendarDate });

export const CobrListQuery = Type.Object(
  {
    inicio: Timestamp,
    fim: Timestamp,
    idRec: Type.Optional(RecId),
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    status: Type.Optional(StatusCobr),
    ...PaginationQuery,
  },
  strict,
);
export type CobrListQuery = Static<typeof CobrListQuery>;

export const CobrList = pageEnvelope('cobsr', CobrCompleta, {
  idRec: Type.Optional(Type.String()),
  cpf: Type.Optional(Type.String()),
  cnpj: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
});
