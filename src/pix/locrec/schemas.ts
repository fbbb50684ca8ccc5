/** Locations of recurrences (Bacen PayloadLocationRec*). */
import { Type, type Static } from '@sinclair/typebox';
import { PaginationQuery, Timestamp, pageEnvelope } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

/** Bacen PayloadLocationRecSolicitada; the body may be left out. */
export const LocRecCreate = Type.Object({ tipo: Type.Optional(Type.Literal('rec')) }, strict);

/** Bacen PayloadLocationRecCompleta: `idRec` only while a recurrence uses the location. */
export const LocRecCompleta = Type.Object({
  id: Type.Integer(),
  location: Type.String(),
  criacao: Timestamp,
  idRec: Type.Optional(Type.String()),
});
export type LocRecCompleta = Static<typeof LocRecCompleta>;

/** Text, as in Bacen: an id that is not a number is simply not found. */
export const LocRecIdParams = Type.Object({ id: Type.String() });

export const LocRecListQuery = Type.Object(
  { inicio: Timestamp, fim: Timestamp, idRecPresente: Type.Optional(Type.Boolean()), ...PaginationQuery },
  strict,
);
export type LocRecListQuery = Static<typeof LocRecListQuery>;

export const LocRecList = pageEnvelope('loc', LocRecCompleta, { idRecPresente: Type.Optional(Type.Boolean()) });
