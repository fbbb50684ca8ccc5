/**
 * Batches of due charges: what a request may ask of a batch (spec rules 1 to 4, checked before the 202),
 * and how batches are read. The items themselves are decided by the batch job (`process.ts`). No HTTP here.
 */
import type { Sql } from '../../platform/db/database.ts';
import { ApiError, invalid, notFound, type Violation } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { listWindow } from '../charges/lifecycle.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import type { Caller } from '../shared/caller.ts';
import { paginacao } from '../shared/schemas.ts';
import { enqueueBatchJob } from './process.ts';
import type { LoteListQuery, LotePatch, LotePut, LoteView } from './schemas.ts';
import {
  batchItems,
  findBatch,
  insertBatch,
  insertItems,
  itemViews,
  listBatches,
  lockBatch,
  requestItems,
  setDescricao,
  txidsInUse,
  waitingItems,
  type BatchRow,
  type ItemRow,
  type ItemViewRow,
} from './store.ts';

export const LOTE_INVALID = 'LoteCobVOperacaoInvalida';
export const LOTE_QUERY_INVALID = 'LoteCobVConsultaInvalida';
const ROOT = 'loteCobV';
const at = (i: number) => `${ROOT}.cobsv.${i}.txid`;

const refuse = (violations: Violation[]) =>
  invalid(
    LOTE_INVALID,
    'A requisição que busca alterar ou criar um lote de cobranças com vencimento não respeita o schema ou está semanticamente errada.',
    violations,
  );

const batchNotFound = (publicId: number) => notFound(`Lote ${publicId} não encontrado.`);

/** Path ids are digits (schema); at most 15 of them, so the number is exact. */
export const batchId = (id: string) => Number(id);

function repeated(txids: string[]): Violation[] {
  const first = new Map<string, number>();
  return txids.flatMap((txid, i) => {
    const seen = first.get(txid);
    if (seen === undefined) first.set(txid, i);
    return seen === undefined
      ? []
      : [{ property: at(i), reason: `txid repetido no lote (já no item ${seen}).`, value: txid }];
  });
}

/** One request at a time per batch: the next waits until no item is EM_PROCESSAMENTO (the job takes about a second). */
function assertSettled(items: ItemRow[]): void {
  const waiting = items.filter((i) => i.status === 'EM_PROCESSAMENTO').length;
  if (waiting)
    throw refuse([
      {
        property: ROOT,
        reason: `o lote tem ${waiting} cobrança(s) EM_PROCESSAMENTO de uma requisição anterior; repita quando terminar.`,
      },
    ]);
}

/**
 * Backpressure: past the limit of waiting items per account the service asks the caller to come back
 * (the only 503 ServicoIndisponivel of batches; docs/lotecobv.md).
 */
async function assertCapacity(sql: Sql, caller: Caller, adding: number): Promise<void> {
  const waiting = await waitingItems(sql, caller.accountId);
  if (waiting + adding > LIMITS.lotecobvPendingItemsMaxPerAccount) {
    throw new ApiError(
      503,
      'ServicoIndisponivel',
      `Há ${waiting} cobranças de lotes em processamento nesta conta (limite ${LIMITS.lotecobvPendingItemsMaxPerAccount}); tente novamente em instantes.`,
    );
  }
}

/** The batch locked for this request, created if new (a concurrent creator of the same id wins, and we follow it). */
async function lockOrCreate(
  sql: Sql,
  caller: Caller,
  publicId: number,
  descricao: string,
): Promise<{ batch: BatchRow; created: boolean }> {
  const existing = await lockBatch(sql, caller.accountId, publicId);
  if (existing) return { batch: existing, created: false };
  const inserted = await insertBatch(sql, caller.accountId, publicId, descricao, caller.now);
  if (inserted) return { batch: inserted, created: true };
  return { batch: (await lockBatch(sql, caller.accountId, publicId))!, created: false };
}

/** Rule 2: a new batch takes only txids no charge and no other batch holds. */
async function newBatchViolations(sql: Sql, caller: Caller, txids: string[]): Promise<Violation[]> {
  const used = await txidsInUse(sql, caller.accountId, txids);
  return txids.flatMap((txid, i) => {
    if (!used.has(txid)) return [];
    const other = used.get(txid);
    const reason =
      other === null
        ? 'txid já utilizado por uma cobrança criada fora de lotes, que não pode integrar um lote.'
        : `a cobrança pertence ao lote ${other} e não pode passar a outro lote.`;
    return [{ property: at(i), reason, value: txid }];
  });
}

/** Rules 3 and 4: a PUT names exactly the batch's charges; a PATCH only charges of the batch. */
function membershipViolations(items: ItemRow[], txids: string[], exact: boolean): Violation[] {
  const known = new Set(items.map((i) => i.txid));
  const violations: Violation[] = txids.flatMap((txid, i) =>
    known.has(txid)
      ? []
      : [
          {
            property: at(i),
            reason: 'a cobrança não pertence a este lote; não se adicionam cobranças a um lote.',
            value: txid,
          },
        ],
  );
  if (exact) {
    const sent = new Set(txids);
    const missing = items.filter((i) => !sent.has(i.txid)).map((i) => i.txid);
    if (missing.length) {
      const sample = missing.slice(0, 5).join(', ') + (missing.length > 5 ? ', …' : '');
      violations.push({
        property: `${ROOT}.cobsv`,
        reason: `faltam ${missing.length} cobrança(s) do lote (${sample}); um PUT reenvia exatamente as cobranças do lote, sem remover nenhuma.`,
      });
    }
  }
  return violations;
}

/**
 * PUT /v2/lotecobv/:id. A new id creates the batch; an existing one re-sends its creation requests: a
 * created charge is replaced by its request (a new revision, unless nothing changed), a denied one is tried again.
 */
export async function putBatch(sql: Sql, caller: Caller, publicId: number, body: LotePut): Promise<void> {
  const txids = body.cobsv.map((c) => c.txid);
  const duplicates = repeated(txids);
  if (duplicates.length) throw refuse(duplicates);
  const { batch, created } = await lockOrCreate(sql, caller, publicId, body.descricao);
  if (created) {
    const violations = await newBatchViolations(sql, caller, txids);
    if (violations.length) throw refuse(violations);
    await assertCapacity(sql, caller, txids.length);
    try {
      await insertItems(sql, batch, body.cobsv);
    } catch (error) {
      // Another new batch took one of these txids between our check and our insert.
      if (isUniqueViolation(error))
        throw refuse([
          {
            property: `${ROOT}.cobsv`,
            reason: 'uma das cobranças passou a pertencer a outro lote durante esta requisição.',
          },
        ]);
      throw error;
    }
  } else {
    const items = await batchItems(sql, batch.id);
    assertSettled(items);
    const violations = membershipViolations(items, txids, true);
    if (violations.length) throw refuse(violations);
    await assertCapacity(sql, caller, txids.length);
    const byTxid = new Map(items.map((i) => [i.txid, i]));
    await requestItems(
      sql,
      batch.id,
      body.cobsv.map((request) => ({
        txid: request.txid,
        op: byTxid.get(request.txid)!.charge_id === null ? 'create' : 'replace',
        request,
      })),
    );
    await setDescricao(sql, batch.id, body.descricao, caller.now);
  }
  await enqueueBatchJob(sql, batch, caller.now);
}

/** PATCH /v2/lotecobv/:id: revisions of some of the batch's charges (and/or a new descricao). */
export async function patchBatch(sql: Sql, caller: Caller, publicId: number, body: LotePatch): Promise<boolean> {
  const batch = await lockBatch(sql, caller.accountId, publicId);
  if (!batch) throw batchNotFound(publicId);
  const items = await batchItems(sql, batch.id);
  assertSettled(items);
  if (body.descricao !== undefined) await setDescricao(sql, batch.id, body.descricao, caller.now);
  if (!body.cobsv) return false;
  const txids = body.cobsv.map((c) => c.txid);
  const byTxid = new Map(items.map((i) => [i.txid, i]));
  // A denied creation made no charge to revise; the batch's PUT (its creation requests) tries it again.
  const uncreated = txids.flatMap((txid, i) =>
    byTxid.get(txid)?.charge_id === null
      ? [
          {
            property: at(i),
            reason: 'a criação desta cobrança foi NEGADA: não há cobrança a revisar; reenvie o lote com PUT.',
            value: txid,
          },
        ]
      : [],
  );
  const violations = [...repeated(txids), ...membershipViolations(items, txids, false), ...uncreated];
  if (violations.length) throw refuse(violations);
  await assertCapacity(sql, caller, txids.length);
  await requestItems(
    sql,
    batch.id,
    body.cobsv.map((patch) => ({ txid: patch.txid, op: 'revise', patch })),
  );
  await enqueueBatchJob(sql, batch, caller.now);
  return true;
}

function view(batch: BatchRow, items: ItemViewRow[]): LoteView {
  return {
    id: batch.public_id,
    descricao: batch.descricao,
    criacao: batch.created_at.toISOString(),
    cobsv: items.map((i) => ({
      // Present once the charge exists (rule 6: a waiting or denied creation is no charge).
      ...(i.charge_created_at && { criacao: i.charge_created_at.toISOString() }),
      txid: i.txid,
      status: i.status,
      ...(i.problema && { problema: i.problema }),
    })),
  };
}

export async function readBatch(sql: Sql, caller: Caller, publicId: number): Promise<LoteView> {
  const batch = await findBatch(sql, caller.accountId, publicId);
  if (!batch) throw batchNotFound(publicId);
  return view(batch, await itemViews(sql, [batch.id]));
}

export async function listBatchPage(sql: Sql, caller: Caller, q: LoteListQuery) {
  const { inicio, fim, page, pageSize } = listWindow(LOTE_QUERY_INVALID, q);
  const { rows, total } = await listBatches(
    sql,
    { accountId: caller.accountId, inicio, fim, cpf: q.cpf, cnpj: q.cnpj, status: q.status },
    page,
    pageSize,
  );
  const items = new Map<number, ItemViewRow[]>();
  for (const item of await itemViews(
    sql,
    rows.map((b) => b.id),
  )) {
    const list = items.get(item.batch_id);
    if (list) list.push(item);
    else items.set(item.batch_id, [item]);
  }
  return {
    parametros: { inicio: q.inicio, fim: q.fim, paginacao: paginacao(page, pageSize, total) },
    lotes: rows.map((batch) => view(batch, items.get(batch.id) ?? [])),
  };
}
