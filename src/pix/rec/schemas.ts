/** Automatic Pix recurrences (Bacen Rec*: RecSolicitada, RecRevisada, RecCompleta, RecsConsultadas). */
import { Type, type Static } from '@sinclair/typebox';
import { CalendarDate } from '../cobv/schemas.ts';
import { Amount, Cnpj, Cpf, PaginationQuery, Timestamp, Txid, pageEnvelope } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

/** Bacen RecId: R + R|N + ISPB + yyyyMMdd + 11 alphanumerics (29 characters). */
export const REC_ID_PATTERN = '^R[RN][0-9A-Z]{8}\\d{8}[a-zA-Z0-9]{11}$';
export const RecId = Type.String({ pattern: REC_ID_PATTERN, description: 'Bacen RecId (29 characters).' });

export const REC_STATUS = ['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'] as const;
export type RecStatus = (typeof REC_STATUS)[number];
export const PERIODICIDADES = ['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'] as const;
export const POLITICAS = ['NAO_PERMITE', 'PERMITE_3R_7D'] as const;
export type PoliticaRetentativa = (typeof POLITICAS)[number];

const StatusRec = Type.Union([
  Type.Literal('CRIADA'),
  Type.Literal('APROVADA'),
  Type.Literal('REJEITADA'),
  Type.Literal('EXPIRADA'),
  Type.Literal('CANCELADA'),
]);
const Periodicidade = Type.Union([
  Type.Literal('SEMANAL'),
  Type.Literal('MENSAL'),
  Type.Literal('TRIMESTRAL'),
  Type.Literal('SEMESTRAL'),
  Type.Literal('ANUAL'),
]);
const Politica = Type.Union([Type.Literal('NAO_PERMITE'), Type.Literal('PERMITE_3R_7D')]);

const Nome = Type.String({ minLength: 1, maxLength: 140 });

/** PessoaFisicaRecorrencia | PessoaJuridicaRecorrencia: exactly one of cpf and cnpj (checked by the service). */
const DevedorRec = Type.Object({ cpf: Type.Optional(Cpf), cnpj: Type.Optional(Cnpj), nome: Nome }, strict);

const Vinculo = Type.Object(
  {
    objeto: Type.Optional(Type.String({ maxLength: 35 })),
    contrato: Type.String({ minLength: 1, maxLength: 35 }),
    devedor: DevedorRec,
  },
  strict,
);

const Calendario = Type.Object(
  { dataInicial: CalendarDate, dataFinal: Type.Optional(CalendarDate), periodicidade: Periodicidade },
  strict,
);

const Valor = Type.Object({ valorRec: Type.Optional(Amount), valorMinimoRecebedor: Type.Optional(Amount) }, strict);

const AtivacaoSolicitada = Type.Object({ dadosJornada: Type.Optional(Type.Object({ txid: Txid }, strict)) }, strict);

/** Bacen RecSolicitada (POST /rec). */
export const RecCreate = Type.Object(
  {
    vinculo: Vinculo,
    calendario: Calendario,
    valor: Type.Optional(Valor),
    politicaRetentativa: Politica,
    recebedor: Type.Optional(Type.Object({ convenio: Type.Optional(Type.String({ maxLength: 60 })) }, strict)),
    loc: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    ativacao: Type.Optional(AtivacaoSolicitada),
  },
  strict,
);
export type RecCreate = Static<typeof RecCreate>;

/** Bacen RecRevisada (PATCH /rec/{idRec}). */
export const RecPatch = Type.Object(
  {
    status: Type.Optional(Type.Literal('CANCELADA')),
    vinculo: Type.Optional(Type.Object({ devedor: Type.Object({ nome: Nome }, strict) }, strict)),
    loc: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    calendario: Type.Optional(Type.Object({ dataInicial: CalendarDate }, strict)),
    ativacao: Type.Optional(AtivacaoSolicitada),
  },
  strict,
);
export type RecPatch = Static<typeof RecPatch>;

const Atualizacao = Type.Array(Type.Object({ status: StatusRec, data: Timestamp }));

const Encerramento = Type.Object({
  rejeicao: Type.Optional(Type.Object({ codigo: Type.String(), descricao: Type.String() })),
  cancelamento: Type.Optional(
    Type.Object({ solicitante: Type.String(), codigo: Type.String(), descricao: Type.String() }),
  ),
});

export const DadosPagador = Type.Object({
  ispbParticipante: Type.String(),
  cpf: Type.Optional(Type.String()),
  cnpj: Type.Optional(Type.String()),
  nome: Type.Optional(Type.String()),
  agencia: Type.Optional(Type.String()),
  conta: Type.Optional(Type.String()),
});
export type DadosPagador = Static<typeof DadosPagador>;

/** Bacen RecCompleta (what reads and writes answer). */
export const RecCompleta = Type.Object({
  idRec: Type.String(),
  vinculo: Type.Object({
    objeto: Type.Optional(Type.String()),
    contrato: Type.String(),
    devedor: Type.Object({
      cpf: Type.Optional(Type.String()),
      cnpj: Type.Optional(Type.String()),
      nome: Type.String(),
    }),
  }),
  calendario: Type.Object({
    dataInicial: Type.String(),
    dataFinal: Type.Optional(Type.String()),
    periodicidade: Type.String(),
  }),
  valor: Type.Optional(
    Type.Object({ valorRec: Type.Optional(Type.String()), valorMinimoRecebedor: Type.Optional(Type.String()) }),
  ),
  recebedor: Type.Object({
    cpf: Type.Optional(Type.String()),
    cnpj: Type.Optional(Type.String()),
    nome: Type.String(),
    convenio: Type.Optional(Type.String()),
  }),
  pagador: Type.Optional(DadosPagador),
  status: StatusRec,
  politicaRetentativa: Type.String(),
  loc: Type.Optional(Type.Object({ id: Type.Integer(), location: Type.String(), criacao: Timestamp })),
  atualizacao: Atualizacao,
  encerramento: Type.Optional(Encerramento),
  ativacao: Type.Object({
    tipoJornada: Type.String(),
    dadosJornada: Type.Optional(Type.Object({ txid: Type.String() })),
  }),
  /** The composite QR code of the journey asked by `?txid=` (GET /rec/{idRec} only). */
  dadosQR: Type.Optional(
    Type.Object({
      jornada: Type.Union([Type.Literal('JORNADA_2'), Type.Literal('JORNADA_3'), Type.Literal('JORNADA_4')]),
      pixCopiaECola: Type.String({ maxLength: 512 }),
    }),
  ),
});
export type RecCompleta = Static<typeof RecCompleta>;

export const RecIdParams = Type.Object({ idRec: Type.String() });
export const RecReadQuery = Type.Object({ txid: Type.Optional(Txid) }, strict);

/** Bacen ParametrosConsultaRec as query parameters. */
export const RecListQuery = Type.Object(
  {
    inicio: Timestamp,
    fim: Timestamp,
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    locationPresente: Type.Optional(Type.Boolean()),
    status: Type.Optional(StatusRec),
    convenio: Type.Optional(Type.String({ maxLength: 60 })),
    ...PaginationQuery,
  },
  strict,
);
export type RecListQuery = Static<typeof RecListQuery>;

export const RecList = pageEnvelope('recs', RecCompleta, {
  cpf: Type.Optional(Type.String()),
  cnpj: Type.Optional(Type.String()),
  locationPresente: Type.Optional(Type.Boolean()),
  status: Type.Optional(Type.String()),
  convenio: Type.Optional(Type.String()),
});
