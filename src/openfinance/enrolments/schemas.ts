/**
 * Automatic-payment enrolment (`/v1/pagamentos-automaticos/adesao`), as the SDK's ofCreateAutomaticEnrollment,
 * ofListAutomaticEnrollment and ofUpdateAutomaticEnrollment type it. Shapes only; the rules that span fields
 * (documents, dates in order, fixed XOR range) are in service.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { EnrolmentStatusSchema, IntervalSchema, OfAmount, OfDate } from '../shared.ts';

const strict = { additionalProperties: false } as const;
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const Pagador = Type.Object(
  {
    cpf: Type.Optional(Type.String({ pattern: '^\\d{11}$' })),
    cnpj: Type.Optional(Type.String({ pattern: '^\\d{14}$' })),
    nome: Type.Optional(text(140)),
    idParticipante: text(64),
  },
  strict,
);

export const ContaBanco = Type.Object(
  {
    nome: text(140),
    documento: Type.String({ pattern: '^(\\d{11}|\\d{14})$' }),
    codigoBanco: Type.String({ pattern: '^\\d{3,8}$' }),
    agencia: Type.String({ pattern: '^\\d{1,4}$' }),
    conta: Type.String({ pattern: '^\\d{1,20}$' }),
    tipoConta: Type.Union([Type.Literal('CACC'), Type.Literal('SVGS'), Type.Literal('TRAN')]),
  },
  strict,
);

export const Automatico = Type.Object(
  {
    valorFixo: Type.Optional(OfAmount),
    valorMinimo: Type.Optional(OfAmount),
    valorMaximo: Type.Optional(OfAmount),
    intervalo: IntervalSchema,
    dataInicio: OfDate,
    permiteRetentativa: Type.Optional(Type.Boolean()),
    primeiroPagamento: Type.Optional(
      Type.Object({ data: OfDate, valor: OfAmount, infoPagador: Type.Optional(text(140)) }, strict),
    ),
  },
  strict,
);

export const Assinatura = Type.Object(
  {
    expiracao: OfDate,
    descricao: Type.Optional(text(140)),
    idProprio: Type.Optional(text(64)),
    configuracao: Type.Object({ automatico: Automatico }, strict),
  },
  strict,
);

export const EnrolmentBody = Type.Object(
  { pagador: Pagador, favorecido: Type.Object({ contaBanco: ContaBanco }, strict), assinatura: Assinatura },
  strict,
);
export type EnrolmentBody = Static<typeof EnrolmentBody>;

export const EnrolmentCreated = Type.Object({ identificadorAdesao: Type.String(), redirectURI: Type.String() });

export const EnrolmentStatus = EnrolmentStatusSchema;

export const EnrolmentView = Type.Object({
  identificadorAdesao: Type.String(),
  status: EnrolmentStatus,
  motivo: Type.Optional(Type.String()),
  dataCriacao: Type.String(),
  pagador: Pagador,
  favorecido: Type.Object({ contaBanco: ContaBanco }),
  assinatura: Assinatura,
});
export type EnrolmentView = Static<typeof EnrolmentView>;

/** Dates (YYYY-MM-DD, Brasília) or instants. */
const DateOrInstant = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:\\d{2}))?$' });

export const EnrolmentListQuery = Type.Object(
  {
    inicio: DateOrInstant,
    fim: DateOrInstant,
    status: Type.Optional(EnrolmentStatus),
    identificadorAdesao: Type.Optional(text(100)),
    idProprio: Type.Optional(text(64)),
    documento: Type.Optional(Type.String({ pattern: '^(\\d{11}|\\d{14})$' })),
    porPagina: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.ofEnrolmentsPerPage })),
    /** The opaque position of a page, as the paging links carry it. */
    pagina: Type.Optional(Type.String({ maxLength: 200 })),
  },
  strict,
);
export type EnrolmentListQuery = Static<typeof EnrolmentListQuery>;

const Link = Type.Union([Type.String(), Type.Null()]);
export const EnrolmentList = Type.Object({
  adesoes: Type.Array(EnrolmentView),
  total: Type.Integer(),
  porPagina: Type.Integer(),
  ultimo: Type.String(),
  proximo: Link,
  anterior: Link,
  atual: Type.String(),
});

/** Only `status: revogado` changes anything; the other fields the SDK types are accepted at their current values. */
export const EnrolmentPatch = Type.Object(
  {
    identificador: Type.Optional(text(100)),
    identificadorAdesao: Type.Optional(text(100)),
    nomeFavorecido: Type.Optional(text(140)),
    status: Type.Optional(Type.String({ maxLength: 32 })),
    motivo: Type.Optional(text(200)),
    dataExpiracao: Type.Optional(OfDate),
    valorMaximo: Type.Optional(OfAmount),
  },
  strict,
);
export type EnrolmentPatch = Static<typeof EnrolmentPatch>;
