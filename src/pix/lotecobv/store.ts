/**
 * Storage of batches of due charges: the batch, its items (one per txid, in request order) and what each
 * item waits for. Every statement handles a whole batch at once: a 1000-item batch costs a few round
 * trips, never one per item.
 */
import type { Sql } from '../../platform/db/database.ts';
import { newLocationToken, type LocationRow } from '../loc/store.ts';
import type { ItemStatus, Problema } from './schemas.ts';

export interface BatchRow {
  id: number;
  account_id: number;
  public_id: number;
  descricao: string;
  created_at: Date;
}

/** An item as the request-time rules see it. */
export interface ItemRow {
  position: number;
  txid: string;
  status: ItemStatus;
  charge_id: number | null;
}

/** What the job does to an item: create its charge, replace it whole (PUT) or revise it (PATCH). */
export type PendingOp = 'create' | 'replace' | 'revise';

export interface PendingItemRow extends ItemRow {
  pending_op: PendingOp;
  request: Record<string, unknown>;
  patch: Record<string, unknown> | null;
}

const BATCH = 'id, account_id, public_id, descricao, created_at';

export async function lockBatch(sql: Sql, accountId: number, publicId: number): Promise<BatchRow | undefined> {
  const { rows } = await sql.query<BatchRow>(
    `select ${BATCH} from cobv_batches where account_id = $1 and public_id = $2 for update`,
    [accountId, publicId],
  );
  return rows[0];
}

export async function lockBatchById(sql: Sql, id: number): Promise<BatchRow | undefined> {
  const { rows } = await sql.query<BatchRow>(`select ${BATCH} from cobv_batches where id = $1 for update`, [id]);
  return rows[0];
}

/** Undefined when a concurrent request created the same id first (then lock it instead). */
export async function insertBatch(
  sql: Sql,
  accountId: number,
  publicId: number,
  descricao: string,
  now: Date,
): Promise<BatchRow | undefined> {
  const { rows } = await sql.query<BatchRow>(
    `insert into cobv_batches (account_id, public_id, descricao, created_at, updated_at) values ($1, $2, $3, $4, $4)
     on conflict (account_id, public_id) do nothing returning ${BATCH}`,
    [accountId, publicId, descricao, now],
  );
  return rows[0];
}

export async function setDescricao(sql: Sql, batchId: number, descricao: string, now: Date): Promise<void> {
  await sql.query('update cobv_batches set descricao = $2, updated_at = $3 where id = $1', [batchId, descricao, now]);
}

export async function batchItems(sql: Sql, batchId: number): Promise<ItemRow[]> {
  const { rows } = await sql.query<ItemRow>(
    'select position, txid, status, charge_id from cobv_batch_items where batch_id = $1 order by position',
    [batchId],
  );
  return rows;
}

/** Which of these txids a charge or a batch item already holds, and the batch (public id) if any. */
export async function txidsInUse(sql: Sql, accountId: number, txids: string[]): Promise<Map<string, number | null>> {
  const { rows } = await sql.query<{ txid: string; public_id: number | null }>(
    `select c.txid, b.public_id from charges c left join cobv_batches b on b.id = c.batch_id where c.account_id = $1 and c.txid = any($2::text[])
     union all
     select i.txid, b.public_id from cobv_batch_items i join cobv_batches b on b.id = i.batch_id where i.account_id = $1 and i.txid = any($2::text[])`,
    [accountId, txids],
  );
  return new Map(rows.map((r) => [r.txid, r.public_id]));
}

/** Items of the account waiting for the batch job (backpressure). */
export async function waitingItems(sql: Sql, accountId: number): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from cobv_batch_items where account_id = $1 and status = 'EM_PROCESSAMENTO'`,
    [accountId],
  );
  return rows[0].n;
}

/** The items of a new batch, in request order, all waiting for creation. */
export async function insertItems(sql: Sql, batch: BatchRow, requests: { txid: string }[]): Promise<void> {
  await sql.query(
    `insert into cobv_batch_items (batch_id, position, account_id, txid, status, pending_op, request)
     select $1, e.ord - 1, $2, e.value->>'txid', 'EM_PROCESSAMENTO', 'create', e.value
     from jsonb_array_elements($3::jsonb) with ordinality as e(value, ord)`,
    [batch.id, batch.account_id, JSON.stringify(requests)],
  );
}

/** Marks items of an existing batch as waiting for `op`; a PUT also replaces the stored request. */
export async function requestItems(
  sql: Sql,
  batchId: number,
  requests: { txid: string; op: PendingOp; request?: object; patch?: object }[],
): Promise<void> {
  await sql.query(
    `update cobv_batch_items i set status = 'EM_PROCESSAMENTO', pending_op = r.op, request = coalesce(r.request, i.request), patch = r.patch
     from jsonb_to_recordset($2::jsonb) as r(txid text, op text, request jsonb, patch jsonb)
     where i.batch_id = $1 and i.txid = r.txid`,
    [batchId, JSON.stringify(requests)],
  );
}

export async function pendingItems(sql: Sql, batchId: number): Promise<PendingItemRow[]> {
  const { rows } = await sql.query<PendingItemRow>(
    `select position, txid, status, charge_id, pending_op, request, patch from cobv_batch_items
     where batch_id = $1 and status = 'EM_PROCESSAMENTO' order by position`,
    [batchId],
  );
  return rows;
}

export interface ItemOutcome {
  position: number;
  status: 'CRIADA' | 'NEGADA';
  problema: Problema | null;
  chargeId: number | null;
}

/** Writes the job's decisions; a charge id, once set, stays. */
export async function settleItems(sql: Sql, batchId: number, outcomes: ItemOutcome[]): Promise<void> {
  if (!outcomes.length) return;
  await sql.query(
    `update cobv_batch_items i set status = r.status, problema = r.problema, charge_id = coalesce(i.charge_id, r.charge_id), pending_op = null, patch = null
     from jsonb_to_recordset($2::jsonb) as r(position integer, status text, problema jsonb, charge_id bigint)
     where i.batch_id = $1 and i.position = r.position`,
    [
      batchId,
      JSON.stringify(
        outcomes.map((o) => ({ position: o.position, status: o.status, problema: o.problema, charge_id: o.chargeId })),
      ),
    ],
  );
}

/** Locks the named locations of the account, in id order (the order every claimer locks in). */
export async function lockLocations(sql: Sql, accountId: number, ids: number[]): Promise<Map<number, LocationRow>> {
  if (!ids.length) return new Map();
  const { rows } = await sql.query<LocationRow>(
    'select id, account_id, tipo_cob, token, created_at from locations where account_id = $1 and id = any($2::bigint[]) order by id for update',
    [accountId, ids],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** The charge serving each of these locations. */
export async function locationUsers(sql: Sql, ids: number[]): Promise<Map<number, number>> {
  if (!ids.length) return new Map();
  const { rows } = await sql.query<{ id: number; location_id: number }>(
    'select id, location_id from charges where location_id = any($1::bigint[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.location_id, r.id]));
}

/** `count` fresh cobv locations, in one statement. */
export async function insertLocations(sql: Sql, accountId: number, count: number, now: Date): Promise<number[]> {
  if (!count) return [];
  const tokens = Array.from({ length: count }, newLocationToken);
  const { rows } = await sql.query<{ id: number }>(
    `insert into locations (account_id, tipo_cob, token, created_at) select $1, 'cobv', t, $2 from unnest($3::text[]) as t returning id`,
    [accountId, now, tokens],
  );
  return rows.map((r) => r.id);
}

export async function deleteLocations(sql: Sql, ids: number[]): Promise<void> {
  if (ids.length) await sql.query('delete from locations where id = any($1::bigint[])', [ids]);
}

// ---- reads ----

export interface ItemViewRow {
  batch_id: number;
  txid: string;
  status: ItemStatus;
  problema: Problema | null;
  charge_created_at: Date | null;
}

export async function findBatch(sql: Sql, accountId: number, publicId: number): Promise<BatchRow | undefined> {
  const { rows } = await sql.query<BatchRow>(
    `select ${BATCH} from cobv_batches where account_id = $1 and public_id = $2`,
    [accountId, publicId],
  );
  return rows[0];
}

/** The items of these batches in request order, with their charge's creation time once it exists. */
export async function itemViews(sql: Sql, batchIds: number[]): Promise<ItemViewRow[]> {
  if (!batchIds.length) return [];
  const { rows } = await sql.query<ItemViewRow>(
    `select i.batch_id, i.txid, i.status, i.problema, c.created_at as charge_created_at
     from cobv_batch_items i left join charges c on c.id = i.charge_id
     where i.batch_id = any($1::bigint[]) order by i.batch_id, i.position`,
    [batchIds],
  );
  return rows;
}

export interface BatchListFilter {
  accountId: number;
  inicio: Date;
  fim: Date;
  cpf?: string;
  cnpj?: string;
  status?: ItemStatus;
}

/** Batches created in [inicio, fim], oldest first; each filter keeps batches with at least one matching item. */
export async function listBatches(
  sql: Sql,
  f: BatchListFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: BatchRow[]; total: number }> {
  const params: unknown[] = [f.accountId, f.inicio, f.fim];
  const conditions: string[] = [];
  const item = (condition: string, value: unknown) => {
    params.push(value);
    conditions.push(condition.replace('?', `$${params.length}`));
  };
  // A created charge's payer is the charge's (revisions may change it); otherwise the request's.
  const document = (field: 'cpf' | 'cnpj') => `coalesce(c.devedor_${field}, i.request #>> '{devedor,${field}}') = ?`;
  if (f.cpf) item(document('cpf'), f.cpf);
  if (f.cnpj) item(document('cnpj'), f.cnpj);
  if (f.status) item('i.status = ?', f.status);
  let where = 'b.account_id = $1 and b.created_at >= $2 and b.created_at <= $3';
  if (conditions.length) {
    where += ` and exists (select 1 from cobv_batch_items i left join charges c on c.id = i.charge_id where i.batch_id = b.id and ${conditions.join(' and ')})`;
  }
  const count = await sql.query<{ n: number }>(`select count(*)::int as n from cobv_batches b where ${where}`, params);
  const { rows } = await sql.query<BatchRow>(
    `select ${BATCH} from cobv_batches b where ${where} order by b.created_at, b.id limit ${pageSize} offset ${page * pageSize}`,
    params,
  );
  return { rows, total: count.rows[0].n };
}
