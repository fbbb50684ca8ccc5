/** Requests to confirm a recurrence (Bacen SolicRec*: SolicRecSolicitada, SolicRecRevisada, SolicRecCompleta). */
import { Type, type Static } from '@sinclair/typebox';
import { RecId } from '../rec/schemas.ts';
import { Cnpj, Cpf, Timestamp } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

export type SolicRecStatus = 'CRIADA' | 'ENVIADA' | 'RECEBIDA' | 'REJEITADA' | 'ACEITA' | 'EXPIRADA' | 'CANCELADA';
const StatusSolicRec = Type.Union([
  Type.Literal('CRIADA'),
  Type.Literal('ENVIADA'),
  Type.Literal('RECEBIDA'),
  Type.Literal('REJEITADA'),
  Type.Literal('ACEITA'),
  Type.Literal('EXPIRADA'),
  Type.Literal('CANCELADA'),
]);

/** DadosBancarios plus exactly one of cpf and cnpj (checked by the service). */
const Destinatario = Type.Object(
  {
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    conta: Type.String({ minLength: 1, maxLength: 20 }),
    ispbParticipante: Type.String({ pattern: '^[0-9A-Z]{8}$' }),
    agencia: Type.Optional(Type.String({ maxLength: 4 })),
  },
  strict,
);

/** Bacen SolicRecSolicitada (POST /solicrec). */
export const SolicRecCreate = Type.Object(
  {
    idRec: RecId,
    calendario: Type.Object({ dataExpiracaoSolicitacao: Timestamp }, strict),
    destinatario: Destinatario,
  },
  strict,
);
export type SolicRecCreate = Static<typeof SolicRecCreate>;

/** Bacen SolicRecRevisada: the receiver may only cancel. */
export const SolicRecPatch = Type.Object({ status: Type.Literal('CANCELADA') }, strict);

/** Bacen SolicRecCompleta, with the recurrence as the payer's institution receives it (RecPayload). */
export const SolicRecCompleta = Type.Object({
  idSolicRec: Type.String(),
  idRec: Type.String(),
  calendario: Type.Object({ dataExpiracaoSolicitacao: Type.String() }),
  destinatario: Type.Object({
    cpf: Type.Optional(Type.String()),
    cnpj: Type.Optional(Type.String()),
    conta: Type.String(),
    ispbParticipante: Type.String(),
    agencia: Type.Optional(Type.String()),
  }),
  status: StatusSolicRec,
  atualizacao: Type.Array(Type.Object({ status: StatusSolicRec, data: Timestamp })),
  recPayload: Type.Object({
    idRec: Type.String(),
    vinculo: Type.Unknown(),
    calendario: Type.Unknown(),
    valor: Type.Optional(Type.Unknown()),
    recebedor: Type.Object({
      cpf: Type.Optional(Type.String()),
      cnpj: Type.Optional(Type.String()),
      nome: Type.String(),
      ispbParticipante: Type.String(),
    }),
    politicaRetentativa: Type.String(),
    atualizacao: Type.Unknown(),
  }),
});
export type SolicRecCompleta = Static<typeof SolicRecCompleta>;

export const SolicRecIdParams = Type.Object({ idSolicRec: Type.String() });
