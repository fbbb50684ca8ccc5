/**
 * Locations of recurrences (Bacen /locrec): creation, reads, lists, unlinking the recurrence, and the link a
 * recurrence takes on creation or revision (`rec.loc`). No HTTP here. The public payload at the location (the
 * signed recurrence for the payer's institution) is src/pix/payload/rec.ts.
 */
import type { Sql } from '../../platform/db/database.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { parseId } from '../shared/location-id.ts';
import type { Caller } from '../shared/caller.ts';
import { paginacao } from '../shared/schemas.ts';
import type { LocRecCompleta, LocRecListQuery } from './schemas.ts';
import {
  findRecLocation,
  insertRecLocation,
  linkRecLocation,
  listRecLocations,
  recLocationAddress,
  unlinkRecLocation,
  type RecLocationRow,
} from './store.ts';

export const LOCREC_NOT_FOUND = 'PayloadLocationRecNaoEncontrado';
export const LOCREC_QUERY_INVALID = 'PayloadLocationRecConsultaInvalida';
export const LOCREC_INVALID = 'PayloadLocationRecOperacaoInvalida';

export function recLocationView(row: RecLocationRow, publicUrl: string): LocRecCompleta {
  return {
    id: row.id,
    location: recLocationAddress(publicUrl, row.token),
    criacao: row.created_at.toISOString(),
    ...(row.id_rec && { idRec: row.id_rec }),
  };
}

async function ownLocation(sql: Sql, caller: Caller, id: string, lock = false): Promise<RecLocationRow> {
  const numeric = parseId(id);
  const row = numeric === undefined ? undefined : await findRecLocation(sql, caller.accountId, numeric, lock);
  if (!row) throw notFound(`Location ${id} não encontrada.`, LOCREC_NOT_FOUND);
  return row;
}

export async function createLocRec(sql: Sql, caller: Caller): Promise<LocRecCompleta> {
  return recLocationView(await insertRecLocation(sql, caller.accountId, caller.now), caller.publicUrl);
}

export async function readLocRec(sql: Sql, caller: Caller, id: string): Promise<LocRecCompleta> {
  return recLocationView(await ownLocation(sql, caller, id), caller.publicUrl);
}

/** DELETE /locrec/{id}/idRec: the recurrence keeps its status but no longer has a location. */
export async function unlinkLocRec(sql: Sql, caller: Caller, id: string): Promise<LocRecCompleta> {
  const row = await ownLocation(sql, caller, id, true);
  await unlinkRecLocation(sql, row.id);
  return recLocationView({ ...row, id_rec: null }, caller.publicUrl);
}

export async function listLocRecs(sql: Sql, caller: Caller, q: LocRecListQuery) {
  if (new Date(q.fim) < new Date(q.inicio))
    throw invalid(LOCREC_QUERY_INVALID, 'Parâmetros de consulta inválidos.', [
      { property: 'fim', reason: 'fim é anterior a inicio.', value: q.fim },
    ]);
  const page = q['paginacao.paginaAtual'] ?? 0;
  const pageSize = q['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault;
  const { rows, total } = await listRecLocations(
    sql,
    { accountId: caller.accountId, inicio: new Date(q.inicio), fim: new Date(q.fim), idRecPresente: q.idRecPresente },
    page,
    pageSize,
  );
  return {
    parametros: {
      inicio: q.inicio,
      fim: q.fim,
      ...(q.idRecPresente !== undefined && { idRecPresente: q.idRecPresente }),
      paginacao: paginacao(page, pageSize, total),
    },
    loc: rows.map((row) => recLocationView(row, caller.publicUrl)),
  };
}

/**
 * Links a recurrence to one of the account's locations (`rec.loc`): a location that does not exist, or that
 * another recurrence uses, is refused naming `rec.loc` (Bacen RecOperacaoInvalida).
 */
export async function linkLocationToRec(
  sql: Sql,
  accountId: number,
  recurrenceId: number,
  idRec: string,
  loc: number,
  refuse: (reason: string) => Error,
): Promise<void> {
  const row = await findRecLocation(sql, accountId, loc, true);
  if (!row) throw refuse('O location referenciado por rec.loc inexiste.');
  if (row.id_rec && row.id_rec !== idRec)
    throw refuse('O location referenciado por rec.loc já está sendo utilizado por outra recorrência.');
  await linkRecLocation(sql, recurrenceId, row.id);
}
