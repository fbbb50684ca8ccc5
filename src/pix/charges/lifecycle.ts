/**
 * The flow immediate (`cob`) and due (`cobv`) charges share: create, revise, read a revision, list.
 * Each kind brings its names and its semantic rules (`ChargeKind`); storage, locations, the revision
 * merge and the list parameters are handled here once. No HTTP here.
 */
import type { Sql } from '../../platform/db/database.ts';
import { invalid, type ApiError, type ErrorNameWithStatus, type Violation } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { parseAmount } from '../../platform/money.ts';
import type { Caller } from '../shared/caller.ts';
import type { DevedorLike } from '../shared/devedor.ts';
import { paginacao, type StatusCobranca } from '../shared/schemas.ts';
import { newLocationToken, type LocationRow, type TipoCob } from '../loc/store.ts';
import { receivedPixForCharges, refundsOf } from '../received/store.ts';
import { pixView, type PixView } from '../received/view.ts';
import { runChargeCreatedHooks } from './hooks.ts';
import { claimLocation, keyStateViolations, keyViolations } from './rules.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import {
  findCharge,
  findRevision,
  insertCharge,
  insertChargesOnNewLocations,
  listCharges,
  reviseCharge,
  type ChargeListFilter,
  type ChargeWrite,
} from './store.ts';
import { accountDisplay } from '../../accounts/store.ts';
import { chargeView, type ChargeView } from './view.ts';
import { batcherFor } from './create-batcher.ts';

/** What every stored charge body has: the columns kept beside the body are derived from these. */
export interface ChargeBody {
  calendario: object;
  valor: { original: string };
  chave: string;
  devedor?: DevedorLike;
}

export interface ChargeKind<B extends ChargeBody> {
  kind: TipoCob;
  /** Root of violation property names: `cob.valor.original`, `cobv.devedor`. */
  root: string;
  /** 400 on create and revise (`CobOperacaoInvalida`), with its detail text. */
  invalidName: ErrorNameWithStatus<400>;
  invalidDetail: string;
  /** 400 on list parameters (`CobConsultaInvalida`). */
  queryInvalidName: ErrorNameWithStatus<400>;
  notFound(txid: string): ApiError;
  noRevision(txid: string, revisao: number): ApiError;
  /** Rules a schema cannot express, checked on every create and revision; `createdAt` is the charge's creation. */
  rules(body: B, createdAt: Date): Violation[];
}

/**
 * A revision's changes: `calendario` and `valor` merge one level deep (a PATCH may send only
 * `valor.original`); every other field, `devedor` included, is replaced whole.
 */
export type ChargeChanges<B> = { [K in keyof B]?: K extends 'calendario' | 'valor' ? Partial<B[K]> : B[K] };
export type ChargePatch<B> = ChargeChanges<B> & { status?: 'REMOVIDA_PELO_USUARIO_RECEBEDOR'; loc?: { id: number } };

function mergeRevision<B extends ChargeBody>(body: B, changes: ChargeChanges<B>): B {
  // The nested spreads restore what a partial calendario/valor would otherwise drop, so the result is a whole B.
  return {
    ...body,
    ...changes,
    calendario: { ...body.calendario, ...changes.calendario },
    valor: { ...body.valor, ...changes.valor },
  } as B;
}

export function toWrite<B extends ChargeBody>(body: B, status: string, locationId: number | null): ChargeWrite<B> {
  return {
    status,
    amountCents: parseAmount(body.valor.original),
    chave: body.chave,
    devedorCpf: body.devedor?.cpf,
    devedorCnpj: body.devedor?.cnpj,
    locationId,
    body,
  };
}

async function assertValid<B extends ChargeBody>(
  sql: Sql,
  caller: Caller,
  def: ChargeKind<B>,
  body: B,
  createdAt: Date,
): Promise<void> {
  const violations = [
    ...def.rules(body, createdAt),
    ...(await keyViolations(sql, caller.accountId, body.chave, def.root)),
  ];
  if (violations.length) throw invalid(def.invalidName, def.invalidDetail, violations);
}

export function duplicateTxid(def: ChargeKind<ChargeBody>, txid: string): ApiError {
  return invalid(def.invalidName, `O txid ${txid} já foi utilizado por outra cobrança.`, [
    { property: 'txid', reason: 'txid já utilizado.', value: txid },
  ]);
}

/**
 * Creates revision 0 on the location named by `locId`, or on a fresh location of the charge's kind, and
 * returns its view built from what was written (a new charge has no Pix yet, so nothing is re-read).
 * The common case (a fresh location, nothing else to write) is one statement; a named location or a
 * creation hook that applies (the sandbox's automatic payment) needs a transaction, opened here unless `sql`
 * is already one.
 */
export async function createCharge<B extends ChargeBody>(
  sql: Sql,
  caller: Caller,
  def: ChargeKind<B>,
  txid: string,
  body: B,
  locId: number | undefined,
): Promise<ChargeView<B>> {
  const ruleViolations = def.rules(body, caller.now);
  // Every problem is reported at once, the key's included; a refused request may cost an extra read.
  if (ruleViolations.length)
    throw invalid(def.invalidName, def.invalidDetail, [
      ...ruleViolations,
      ...(await keyViolations(sql, caller.accountId, body.chave, def.root)),
    ]);
  const write = toWrite(body, 'ATIVA', null);
  const created = { accountId: caller.accountId, txid, amountCents: write.amountCents };
  const hooked = caller.chargeCreated.some((hook) => hook.appliesTo(created));
  let location: LocationRow;
  try {
    location =
      locId === undefined && !hooked
        ? await createOnNewLocation(sql, caller, def, txid, write)
        : await sql.atomic((s) => createInTransaction(s, caller, def, txid, write, locId));
  } catch (error) {
    // The unique (account, txid) index decides duplicates, concurrent ones included; nothing was written.
    if (isUniqueViolation(error)) throw duplicateTxid(def, txid);
    throw error;
  }
  const account = await accountDisplay(sql, caller.accountId);
  return chargeView(
    {
      kind: def.kind,
      txid,
      revisao: 0,
      status: 'ATIVA',
      created_at: caller.now,
      location_id: location.id,
      body,
      loc_token: location.token,
      loc_created_at: location.created_at,
      account_nome: account.nome,
      account_cidade: account.cidade,
    },
    caller.publicUrl,
  );
}

async function createInTransaction<B extends ChargeBody>(
  sql: Sql,
  caller: Caller,
  def: ChargeKind<B>,
  txid: string,
  write: ChargeWrite<B>,
  locId: number | undefined,
): Promise<LocationRow> {
  const location =
    locId === undefined
      ? await createOnNewLocation(sql, caller, def, txid, write)
      : await createOnNamedLocation(sql, caller, def, txid, write, locId);
  const created = { accountId: caller.accountId, txid, amountCents: write.amountCents };
  await runChargeCreatedHooks(sql, caller.chargeCreated, created, caller.now);
  return location;
}

async function createOnNewLocation<B extends ChargeBody>(
  sql: Sql,
  caller: Caller,
  def: ChargeKind<B>,
  txid: string,
  write: ChargeWrite<B>,
): Promise<LocationRow> {
  const charge = {
    accountId: caller.accountId,
    kind: def.kind,
    txid,
    write,
    locationToken: newLocationToken(),
    now: caller.now,
  };
  const created = sql.inTransaction
    ? (await insertChargesOnNewLocations(sql, [charge]))[0]
    : await batcherFor(sql).submit(charge);
  if (!created.location)
    throw invalid(def.invalidName, def.invalidDetail, keyStateViolations(created.key, write.chave, def.root));
  return created.location;
}

async function createOnNamedLocation<B extends ChargeBody>(
  sql: Sql,
  caller: Caller,
  def: ChargeKind<B>,
  txid: string,
  write: ChargeWrite<B>,
  locId: number,
): Promise<LocationRow> {
  const keyProblems = await keyViolations(sql, caller.accountId, write.chave, def.root);
  if (keyProblems.length) throw invalid(def.invalidName, def.invalidDetail, keyProblems);
  const location = await claimLocation(sql, {
    accountId: caller.accountId,
    locId,
    tipoCob: def.kind,
    errorName: def.invalidName,
    root: def.root,
  });
  await insertCharge(sql, caller.accountId, def.kind, txid, { ...write, locationId: location.id }, caller.now);
  return location;
}

/** Only ATIVA charges are revised (Bacen CobOperacaoInvalida / CobVOperacaoInvalida on `status`). */
export function assertRevisable(
  def: Pick<ChargeKind<ChargeBody>, 'invalidName' | 'root'>,
  charge: { status: string },
): void {
  if (charge.status !== 'ATIVA') {
    throw invalid(def.invalidName, `A cobrança não está ATIVA (status ${charge.status}) e não pode ser alterada.`, [
      { property: `${def.root}.status`, reason: 'cobrança não está ATIVA.' },
    ]);
  }
}

/**
 * Where a revision leads: the removal (status alone, body unchanged, nothing to check) or the changes
 * merged into the body, which must then pass the kind's rules; `locId` is a location to move to.
 */
export function revisedState<B extends ChargeBody>(
  def: ChargeKind<B>,
  body: B,
  patch: ChargePatch<B>,
): { status: string; body: B; locId?: number; check: boolean } {
  const { status, loc, ...changes } = patch;
  if (!status)
    return { status: 'ATIVA', body: mergeRevision(body, changes as ChargeChanges<B>), locId: loc?.id, check: true };
  if (Object.keys(changes).length || loc) {
    throw invalid(def.invalidName, 'Não é possível remover a cobrança e alterá-la na mesma requisição.', [
      { property: `${def.root}.status`, reason: 'remoção com outras alterações.' },
    ]);
  }
  return { status, body, check: false };
}

/** Writes revision N+1: either the removal (status alone) or the merged changes, checked as a whole. */
export async function applyRevision<B extends ChargeBody>(
  sql: Sql,
  caller: Caller,
  def: ChargeKind<B>,
  txid: string,
  patch: ChargePatch<B>,
): Promise<void> {
  const charge = await findCharge<B>(sql, caller.accountId, def.kind, txid, true);
  if (!charge) throw def.notFound(txid);
  assertRevisable(def, charge);
  const next = revisedState(def, charge.body, patch);
  if (next.check) await assertValid(sql, caller, def, next.body, charge.created_at);
  const locationId =
    next.locId === undefined
      ? charge.location_id
      : (
          await claimLocation(sql, {
            accountId: caller.accountId,
            locId: next.locId,
            tipoCob: def.kind,
            chargeId: charge.id,
            errorName: def.invalidName,
            root: def.root,
          })
        ).id;
  await reviseCharge(sql, charge.id, charge.revisao + 1, toWrite(next.body, next.status, locationId), caller.now);
}

/** A charge as read: its view plus the Pix it received (Bacen CobCompleta.pix), present once paid. */
export type ChargeRead<B extends ChargeBody> = ChargeView<B> & { pix?: PixView[] };

/**
 * Only a CONCLUIDA charge can have received a Pix: the payment engine marks the charge CONCLUIDA in the
 * transaction that records its Pix, and only ATIVA charges are ever revised. So reading an unpaid charge
 * (the usual poll for payment) costs one round trip, not two. `status` is the charge's current one.
 */
async function withReceivedPix<B extends ChargeBody>(
  sql: Sql,
  charges: { id: number; status: string; view: ChargeView<B> }[],
): Promise<ChargeRead<B>[]> {
  const paid = charges.filter((c) => c.status === 'CONCLUIDA');
  const received = await receivedPixForCharges(
    sql,
    paid.map((c) => c.id),
  );
  if (!received.length) return charges.map((c) => c.view);
  const refunds = await refundsOf(
    sql,
    received.map((p) => p.id),
  );
  return charges.map(({ id, view }) => {
    const pix = received.filter((p) => p.charge_id === id).map((p) => pixView(p, refunds));
    return pix.length ? { ...view, pix } : view;
  });
}

/** The latest revision, or revision `revisao` as it was written (with the location it had then). */
export async function readCharge<B extends ChargeBody>(
  sql: Sql,
  caller: Caller,
  def: ChargeKind<B>,
  txid: string,
  revisao?: number,
): Promise<ChargeRead<B>> {
  const charge = await findCharge<B>(sql, caller.accountId, def.kind, txid);
  if (!charge) throw def.notFound(txid);
  let source = charge;
  if (revisao !== undefined && revisao !== charge.revisao) {
    const revision = revisao < charge.revisao ? await findRevision<B>(sql, charge.id, revisao) : undefined;
    if (!revision) throw def.noRevision(txid, revisao);
    source = { ...charge, ...revision };
  }
  const [read] = await withReceivedPix(sql, [
    { id: charge.id, status: charge.status, view: chargeView(source, caller.publicUrl) },
  ]);
  return read;
}

export interface ChargeListQuery {
  inicio: string;
  fim: string;
  cpf?: string;
  cnpj?: string;
  status?: StatusCobranca;
  locationPresente?: boolean;
  'paginacao.paginaAtual'?: number;
  'paginacao.itensPorPagina'?: number;
}

/** What every list checks the same way (charges and batches): the window, one document, the page. */
export function listWindow(
  queryInvalidName: ErrorNameWithStatus<400>,
  q: Pick<ChargeListQuery, 'inicio' | 'fim' | 'cpf' | 'cnpj' | 'paginacao.paginaAtual' | 'paginacao.itensPorPagina'>,
) {
  const inicio = new Date(q.inicio);
  const fim = new Date(q.fim);
  const violations: Violation[] = [];
  if (fim < inicio) violations.push({ property: 'fim', reason: 'fim é anterior a inicio.', value: q.fim });
  if (q.cpf && q.cnpj) violations.push({ property: 'cpf', reason: 'cpf e cnpj não podem ser informados juntos.' });
  if (violations.length)
    throw invalid(
      queryInvalidName,
      'Os parâmetros de consulta não respeitam o schema ou não fazem sentido.',
      violations,
    );
  return {
    inicio,
    fim,
    page: q['paginacao.paginaAtual'] ?? 0,
    pageSize: q['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault,
  };
}

/** One page of charges created in [inicio, fim], oldest first; `extra` carries a kind's own filter. */
export async function listChargePage<B extends ChargeBody>(
  sql: Sql,
  caller: Caller,
  def: ChargeKind<B>,
  q: ChargeListQuery,
  extra?: ChargeListFilter['extra'],
) {
  const { inicio, fim, page, pageSize } = listWindow(def.queryInvalidName, q);
  const { rows, total } = await listCharges<B>(
    sql,
    {
      accountId: caller.accountId,
      kind: def.kind,
      inicio,
      fim,
      cpf: q.cpf,
      cnpj: q.cnpj,
      status: q.status,
      locationPresente: q.locationPresente,
      extra,
    },
    page,
    pageSize,
  );
  return {
    parametros: { inicio: q.inicio, fim: q.fim, paginacao: paginacao(page, pageSize, total) },
    cobs: await withReceivedPix(
      sql,
      rows.map((row) => ({ id: row.id, status: row.status, view: chargeView(row, caller.publicUrl) })),
    ),
  };
}
