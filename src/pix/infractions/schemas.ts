/** MED infractions: shapes of the SDK's medList and medDefense, and of the sandbox's tools. */
import { Type, type Static } from '@sinclair/typebox';
import { END_TO_END_ID_PATTERN } from '../../platform/institution.ts';
import { PaginationQuery, Timestamp, pageEnvelope } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

export const InfractionParams = Type.Object({ idInfracao: Type.String({ pattern: '^[a-zA-Z0-9-]{1,64}$' }) });

export const TIPOS_SITUACAO = [
  'golpe',
  'aquisição da conta',
  'coerção',
  'acesso fraudulento',
  'outro',
  'desconhecido',
] as const;

export const DefenceRequest = Type.Object(
  {
    analise: Type.Union([Type.Literal('aceito'), Type.Literal('rejeitado')]),
    justificativa: Type.String({ minLength: 1, maxLength: 2000 }),
  },
  strict,
);
export type DefenceRequest = Static<typeof DefenceRequest>;

export const OpenRequest = Type.Object(
  {
    endToEndId: Type.String({ pattern: END_TO_END_ID_PATTERN }),
    motivo: Type.String({ minLength: 1, maxLength: 2000 }),
    tipoSituacao: Type.Optional(Type.Union(TIPOS_SITUACAO.map((t) => Type.Literal(t)))),
  },
  strict,
);
export type OpenRequest = Static<typeof OpenRequest>;

export const DecideRequest = Type.Object({ procedente: Type.Boolean() }, strict);

const Party = Type.Object({
  nomeParticipante: Type.String(),
  conta: Type.String(),
  nome: Type.String(),
  documento: Type.String(),
});

export const InfractionView = Type.Object({
  idInfracao: Type.String(),
  endToEndId: Type.String(),
  protocolo: Type.String(),
  dataTransacao: Timestamp,
  valor: Type.String(),
  chave: Type.Optional(Type.String()),
  status: Type.Union([
    Type.Literal('ABERTA'),
    Type.Literal('EM_DEFESA'),
    Type.Literal('ACEITA'),
    Type.Literal('REJEITADA'),
    Type.Literal('CANCELADA_EFI'),
  ]),
  razao: Type.String(),
  tipoSituacao: Type.String(),
  defesa: Type.Optional(Type.String()),
  identificadorTicket: Type.Array(Type.Integer()),
  dadosAnalise: Type.Object({
    abertura: Timestamp,
    prazoFinalizacao: Timestamp,
    recebimentoDefesa: Type.Optional(Timestamp),
    finalizacao: Type.Optional(Timestamp),
  }),
  origem: Party,
  destino: Party,
  criadoEm: Timestamp,
  atualizadoEm: Timestamp,
});

export const InfractionListQuery = Type.Object({ inicio: Timestamp, fim: Timestamp, ...PaginationQuery }, strict);
export type InfractionListQuery = Static<typeof InfractionListQuery>;

export const InfractionList = pageEnvelope('infracoes', InfractionView);
