/** Payload locations: creation, reads, lists, unlinking a charge, and the QR code of a location. No HTTP here. */
import { findAccount } from '../../accounts/store.ts';
import { dynamicBrCode } from '../../platform/brcode.ts';
import type { Sql } from '../../platform/db/database.ts';
import { ApiError, invalid, notFound } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { Caller } from '../shared/caller.ts';
import { paginacao } from '../shared/schemas.ts';
import { qrImageDataUrl } from '../qrcodes/image.ts';
import { visualizationPage } from '../qrcodes/page.ts';
import { chargeSummary } from '../payload/service.ts';
import type { LocCompleta, LocListQuery, LocQrCode } from './schemas.ts';
import { parseId } from '../shared/location-id.ts';
import {
  findLocation,
  findLocationByToken,
  insertLocation,
  listLocations,
  lockLocation,
  locationAddress,
  unlinkLocation,
  type LinkedLocationRow,
  type LocationRow,
  type TipoCob,
} from './store.ts';

export const LOC_NOT_FOUND = 'PayloadLocationNaoEncontrado';
export const LOC_QUERY_INVALID = 'PayloadLocationConsultaInvalida';
export const LOC_INVALID = 'PayloadLocationOperacaoInvalida';

/** The public page showing a location's QR code (`linkVisualizacao`). */
export const VISUALIZATION_PATH = '/qr/visualizar';

/** Bacen PayloadLocationCompleta; `txid` only while a charge uses the location. */
export function locationView(row: LocationRow & { txid?: string | null }, publicUrl: string): LocCompleta {
  return {
    id: row.id,
    location: locationAddress(publicUrl, row.token, row.tipo_cob),
    tipoCob: row.tipo_cob,
    criacao: row.created_at.toISOString(),
    ...(row.txid && { txid: row.txid }),
  };
}

const locNotFound = (id: string) => notFound(`Location ${id} não encontrada.`, LOC_NOT_FOUND);

async function ownLocation(sql: Sql, caller: Caller, id: string): Promise<LinkedLocationRow> {
  const numeric = parseId(id);
  const row = numeric === undefined ? undefined : await findLocation(sql, caller.accountId, numeric);
  if (!row) throw locNotFound(id);
  return row;
}

export async function createLoc(sql: Sql, caller: Caller, tipoCob: TipoCob): Promise<LocCompleta> {
  return locationView(await insertLocation(sql, caller.accountId, tipoCob, caller.now), caller.publicUrl);
}

export async function readLoc(sql: Sql, caller: Caller, id: string): Promise<LocCompleta> {
  return locationView(await ownLocation(sql, caller, id), caller.publicUrl);
}

export async function listLocs(sql: Sql, caller: Caller, q: LocListQuery) {
  const inicio = new Date(q.inicio);
  const fim = new Date(q.fim);
  if (fim < inicio)
    throw invalid(LOC_QUERY_INVALID, 'Os parâmetros de consulta não respeitam o schema ou não fazem sentido.', [
      { property: 'fim', reason: 'fim é anterior a inicio.', value: q.fim },
    ]);
  const page = q['paginacao.paginaAtual'] ?? 0;
  const pageSize = q['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault;
  const { rows, total } = await listLocations(
    sql,
    { accountId: caller.accountId, inicio, fim, txIdPresente: q.txIdPresente, tipoCob: q.tipoCob },
    page,
    pageSize,
  );
  return {
    parametros: {
      inicio: q.inicio,
      fim: q.fim,
      ...(q.txIdPresente !== undefined && { txIdPresente: q.txIdPresente }),
      ...(q.tipoCob && { tipoCob: q.tipoCob }),
      paginacao: paginacao(page, pageSize, total),
    },
    loc: rows.map((row) => locationView(row, caller.publicUrl)),
  };
}

/**
 * Bacen DELETE /loc/{id}/txid: the charge keeps its status but loses its location; the location keeps
 * its address and may serve another charge. Idempotent: a location serving nothing answers the same.
 * The row lock orders this against a charge claiming the location at the same moment.
 */
export async function unlinkLoc(sql: Sql, caller: Caller, id: string): Promise<LocCompleta> {
  const numeric = parseId(id);
  const row = numeric === undefined ? undefined : await lockLocation(sql, caller.accountId, numeric);
  if (!row) throw locNotFound(id);
  await unlinkLocation(sql, row.id);
  return locationView(row, caller.publicUrl);
}

/** The dynamic BR code of a location: merchant name and city are the receiving account's. */
async function locationBrCode(
  sql: Sql,
  row: LocationRow,
  publicUrl: string,
): Promise<{ brCode: string; recebedor: string }> {
  const account = await findAccount(sql, row.account_id);
  if (!account) throw new ApiError(500, 'ErroInternoDoServidor', 'Conta da location inexistente.');
  const brCode = dynamicBrCode({
    locationUrl: locationAddress(publicUrl, row.token, row.tipo_cob),
    merchantName: account.nome,
    merchantCity: account.cidade,
  });
  return { brCode, recebedor: account.nome };
}

/**
 * The QR code of a location, whether or not a charge uses it now: a location is reusable (unlink, then
 * link a new charge), so a printed code stays valid; while no charge is linked payers get a 404.
 */
/** `pagesUrl`: the pages listener's origin, where the person who opens `linkVisualizacao` is asked for no certificate. */
export async function locQrCode(sql: Sql, caller: Caller, id: string, pagesUrl: string): Promise<LocQrCode> {
  const row = await ownLocation(sql, caller, id);
  const { brCode } = await locationBrCode(sql, row, caller.publicUrl);
  return {
    qrcode: brCode,
    imagemQrcode: await qrImageDataUrl(brCode),
    linkVisualizacao: `${pagesUrl}${VISUALIZATION_PATH}/${row.token}`,
  };
}

/**
 * The public page behind `linkVisualizacao`: anyone holding the link may see it, like the location itself.
 * undefined for an unknown token (the route answers its friendly 404 page).
 */
export async function locationPage(
  sql: Sql,
  token: string,
  options: { publicUrl: string; sandbox: boolean; now: (accountId: number) => Date },
): Promise<string | undefined> {
  const row = await findLocationByToken(sql, token);
  if (!row) return undefined;
  const { brCode, recebedor } = await locationBrCode(sql, row, options.publicUrl);
  const [image, charge] = await Promise.all([qrImageDataUrl(brCode), chargeSummary(sql, token, options.now)]);
  return visualizationPage({ recebedor, brCode, image, charge, sandbox: options.sandbox });
}
