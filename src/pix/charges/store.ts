/**
 * Storage of immediate and due charges. `charges` holds each charge's current revision; `charge_revisions`
 * the superseded ones, each copied there by the statement that supersedes it. Creating a charge, by far the
 * most frequent write, so writes one row (and a location), not two.
 */
import assert from 'node:assert/strict';
import type { Sql } from '../../platform/db/database.ts';
import { assertCents } from '../../platform/money.ts';
import { clusterTurn, GROUP_STATEMENT_KINDS } from '../../platform/db/group-commit.ts';
import type { LocationRow, TipoCob } from '../loc/store.ts';

export interface ChargeRow<B = Record<string, unknown>> {
  id: number;
  account_id: number;
  txid: string;
  kind: TipoCob;
  revisao: number;
  status: string;
  created_at: Date;
  updated_at: Date;
  amount_cents: number;
  chave: string;
  location_id: number | null;
  body: B;
  /** Joined: the location's token and creation time, and the receiver's name and city. */
  loc_token: string | null;
  loc_created_at: Date | null;
  account_nome: string;
  account_cidade: string;
}

export interface ChargeWrite<B> {
  status: string;
  amountCents: number;
  chave: string;
  devedorCpf?: string;
  devedorCnpj?: string;
  locationId: number | null;
  body: B;
}

const SELECT = `select c.id, c.account_id, c.txid, c.kind, c.revisao, c.status, c.created_at, c.updated_at, c.amount_cents,
  c.chave, c.location_id, c.body, l.token as loc_token, l.created_at as loc_created_at, a.nome as account_nome, a.cidade as account_cidade
  from charges c join accounts a on a.id = c.account_id left join locations l on l.id = c.location_id`;

export async function findCharge<B>(
  sql: Sql,
  accountId: number,
  kind: TipoCob,
  txid: string,
  forUpdate = false,
): Promise<ChargeRow<B> | undefined> {
  // Found by (account_id, txid) alone, its kind checked on the row: the unique key is then the only index that
  // matches, whatever the table's statistics say (migration 026).
  const { rows } = await sql.query<ChargeRow<B>>(
    `${SELECT} where c.account_id = $1 and c.txid = $2${forUpdate ? ' for update of c' : ''}`,
    [accountId, txid],
  );
  return rows[0]?.kind === kind ? rows[0] : undefined;
}

/**
 * Gives a locked charge a new row version without changing it. The settlement path pays only the version of
 * the charge it read (src/pix/payments/store.ts); a change that decides how a payment goes but lives in
 * another table (a split link) makes the charge's version change too, so a payment decided before it is
 * decided again.
 */
export async function newChargeVersion(sql: Sql, id: number): Promise<void> {
  await sql.query('update charges set updated_at = updated_at where id = $1', [id]);
}

/** Several charges of one account by id, locked for revision (the batch job revises them together). */
export async function lockCharges<B>(sql: Sql, accountId: number, ids: number[]): Promise<ChargeRow<B>[]> {
  if (!ids.length) return [];
  const { rows } = await sql.query<ChargeRow<B>>(
    `${SELECT} where c.account_id = $1 and c.id = any($2::bigint[]) order by c.id for update of c`,
    [accountId, ids],
  );
  return rows;
}

export async function txidTaken(sql: Sql, accountId: number, txid: string): Promise<boolean> {
  const { rows } = await sql.query('select 1 from charges where account_id = $1 and txid = $2', [accountId, txid]);
  return rows.length > 0;
}

export async function chargeUsingLocation(sql: Sql, locationId: number): Promise<number | undefined> {
  const { rows } = await sql.query<{ id: number }>('select id from charges where location_id = $1', [locationId]);
  return rows[0]?.id;
}

export async function insertCharge<B>(
  sql: Sql,
  accountId: number,
  kind: TipoCob,
  txid: string,
  w: ChargeWrite<B>,
  now: Date,
): Promise<number> {
  assertCents(w.amountCents);
  const { rows } = await sql.query<{ id: number }>(
    `insert into charges (account_id, txid, kind, revisao, status, created_at, updated_at, amount_cents, chave, devedor_cpf, devedor_cnpj, location_id, body)
     values ($1, $2, $3, 0, $4, $5, $5, $6, $7, $8, $9, $10, $11::jsonb) returning id`,
    [
      accountId,
      txid,
      kind,
      w.status,
      now,
      w.amountCents,
      w.chave,
      w.devedorCpf ?? null,
      w.devedorCnpj ?? null,
      w.locationId,
      JSON.stringify(w.body),
    ],
  );
  return rows[0].id;
}

/** One charge of `insertChargesOnNewLocations`. */
export interface NewChargeOnNewLocation<B> {
  accountId: number;
  kind: TipoCob;
  txid: string;
  write: Omit<ChargeWrite<B>, 'locationId'>;
  locationToken: string;
  now: Date;
}

/** What the key check found: the key of this account (removed or not), or nothing. */
export type KeyState = { removed_at: Date | null } | undefined;

export interface NewChargeOutcome {
  key: KeyState;
  location?: LocationRow;
}

/**
 * The common create in one statement, for one charge or many (requests coalesced by the group commit of create-batcher.ts):
 * check each key, open a fresh location, write the charge. A statement is atomic and
 * costs one round trip, so no explicit transaction is needed. A charge whose key is not its account's, or
 * is removed, writes nothing; `key` says what was found. A txid already taken fails the whole statement
 * (unique index), as a single create would.
 * Each accepted charge draws its location's id from the sequence first, so both inserts read it from the
 * same materialised row: nothing is joined back on the token (a nested loop over the batch, measured).
 */
export async function insertChargesOnNewLocations<B>(
  sql: Sql,
  charges: NewChargeOnNewLocation<B>[],
): Promise<NewChargeOutcome[]> {
  const input = charges.map((c, n) => {
    assertCents(c.write.amountCents);
    return {
      n,
      account_id: c.accountId,
      txid: c.txid,
      kind: c.kind,
      status: c.write.status,
      created_at: c.now.toISOString(),
      amount_cents: c.write.amountCents,
      chave: c.write.chave,
      devedor_cpf: c.write.devedorCpf ?? null,
      devedor_cnpj: c.write.devedorCnpj ?? null,
      body: c.write.body,
      token: c.locationToken,
    };
  });
  const { rows } = await sql.query<{
    n: number;
    key_found: boolean;
    key_removed_at: Date | null;
    location_id: number | null;
  }>(
    `with ${clusterTurn(GROUP_STATEMENT_KINDS.chargeCreate)},
     input as (
       select r.* from turn, jsonb_to_recordset($1::jsonb) as r(n int, account_id bigint, txid text, kind text, status text, created_at timestamptz,
         amount_cents bigint, chave text, devedor_cpf text, devedor_cnpj text, body jsonb, token text)),
     k as (
       select i.*, p.chave is not null as key_found, p.removed_at as key_removed_at,
         case when p.chave is not null and p.removed_at is null then nextval('locations_id_seq') end as location_id
       from input i left join pix_keys p on p.chave = i.chave and p.account_id = i.account_id),
     l as (insert into locations (id, account_id, tipo_cob, token, created_at)
       select location_id, account_id, kind, token, created_at from k where location_id is not null),
     c as (
       insert into charges (account_id, txid, kind, revisao, status, created_at, updated_at, amount_cents, chave, devedor_cpf, devedor_cnpj, location_id, body)
       select account_id, txid, kind, 0, status, created_at, created_at, amount_cents, chave, devedor_cpf, devedor_cnpj, location_id, body
       from k where location_id is not null order by n)
     select n, key_found, key_removed_at, location_id from k`,
    [JSON.stringify(input)],
  );
  assert.equal(rows.length, charges.length, 'one outcome per charge');
  const outcomes: NewChargeOutcome[] = new Array(charges.length);
  for (const row of rows) {
    const key = row.key_found ? { removed_at: row.key_removed_at } : undefined;
    const c = charges[row.n];
    outcomes[row.n] =
      row.location_id === null
        ? { key }
        : {
            key,
            location: {
              id: row.location_id,
              account_id: c.accountId,
              tipo_cob: c.kind,
              token: c.locationToken,
              created_at: c.now,
            },
          };
  }
  return outcomes;
}

/** Writes revision `revisao` (the current one + 1); the current one is kept whole in charge_revisions. */
export async function reviseCharge<B>(
  sql: Sql,
  chargeId: number,
  revisao: number,
  w: ChargeWrite<B>,
  now: Date,
): Promise<void> {
  await reviseCharges(sql, [{ chargeId, revisao, write: w }], now);
}

/** A write as one record of `jsonb_to_recordset` (the bulk statements below). */
function record<B>(w: ChargeWrite<B>) {
  assertCents(w.amountCents);
  return {
    status: w.status,
    amount_cents: w.amountCents,
    chave: w.chave,
    devedor_cpf: w.devedorCpf ?? null,
    devedor_cnpj: w.devedorCnpj ?? null,
    location_id: w.locationId,
    body: w.body,
  };
}
const RECORD_COLUMNS =
  'status text, amount_cents bigint, chave text, devedor_cpf text, devedor_cnpj text, location_id bigint, body jsonb';

/**
 * insertCharge for many charges in one round trip (batches of due charges). A txid taken meanwhile is skipped, not an error; returns the ids by txid of those written.
 */
export async function insertCharges<B>(
  sql: Sql,
  accountId: number,
  kind: TipoCob,
  charges: { txid: string; write: ChargeWrite<B> }[],
  now: Date,
  batchId: number | null,
): Promise<Map<string, number>> {
  if (!charges.length) return new Map();
  const input = charges.map(({ txid, write }) => ({ txid, ...record(write) }));
  const { rows } = await sql.query<{ id: number; txid: string }>(
    `with input as (select * from jsonb_to_recordset($5::jsonb) as r(txid text, ${RECORD_COLUMNS})),
     created as (
       insert into charges (account_id, txid, kind, revisao, status, created_at, updated_at, amount_cents, chave, devedor_cpf, devedor_cnpj, location_id, body, batch_id)
       select $1, txid, $2, 0, status, $3, $3, amount_cents, chave, devedor_cpf, devedor_cnpj, location_id, body, $4 from input
       on conflict (account_id, txid) do nothing
       returning id, txid)
     select id, txid from created`,
    [accountId, kind, now, batchId, JSON.stringify(input)],
  );
  return new Map(rows.map((r) => [r.txid, r.id]));
}

/**
 * Moves many charges one revision forward in one round trip; the rows must be locked by the caller. Each
 * current revision is copied to charge_revisions as it was (both sub-statements see the rows before the
 * update). A row written there by a node of an earlier version, which also kept the current revision, is
 * left as it is: it holds the same revision.
 */
export async function reviseCharges<B>(
  sql: Sql,
  revisions: { chargeId: number; revisao: number; write: ChargeWrite<B> }[],
  now: Date,
): Promise<void> {
  if (!revisions.length) return;
  const input = revisions.map(({ chargeId, revisao, write }) => ({ id: chargeId, revisao, ...record(write) }));
  const { rows } = await sql.query<{ revised: number }>(
    `with input as (select * from jsonb_to_recordset($2::jsonb) as r(id bigint, revisao integer, ${RECORD_COLUMNS})),
     superseded as (
       insert into charge_revisions (charge_id, revisao, status, location_id, body, created_at)
       select c.id, c.revisao, c.status, c.location_id, c.body, c.updated_at from charges c join input i on i.id = c.id and c.revisao = i.revisao - 1
       on conflict (charge_id, revisao) do nothing),
     revised as (
       update charges c set revisao = i.revisao, status = i.status, updated_at = $1, amount_cents = i.amount_cents, chave = i.chave,
         devedor_cpf = i.devedor_cpf, devedor_cnpj = i.devedor_cnpj, location_id = i.location_id, body = i.body
       from input i where c.id = i.id and c.revisao = i.revisao - 1 returning c.id)
     select count(*)::int as revised from revised`,
    [now, JSON.stringify(input)],
  );
  // Revisions are consecutive: each write names the one after the charge's current revision.
  if (rows[0].revised !== revisions.length)
    throw new Error(`revised ${rows[0].revised} of ${revisions.length} charges: a revision was not the next one`);
}

export interface RevisionRow<B> {
  revisao: number;
  status: string;
  location_id: number | null;
  body: B;
  loc_token: string | null;
  loc_created_at: Date | null;
}

export async function findRevision<B>(
  sql: Sql,
  chargeId: number,
  revisao: number,
): Promise<RevisionRow<B> | undefined> {
  const { rows } = await sql.query<RevisionRow<B>>(
    `select r.revisao, r.status, r.location_id, r.body, l.token as loc_token, l.created_at as loc_created_at
     from charge_revisions r left join locations l on l.id = r.location_id where r.charge_id = $1 and r.revisao = $2`,
    [chargeId, revisao],
  );
  return rows[0];
}

export interface ChargeListFilter {
  accountId: number;
  kind: TipoCob;
  inicio: Date;
  fim: Date;
  cpf?: string;
  cnpj?: string;
  status?: string;
  locationPresente?: boolean;
  /** Extra SQL condition and its parameters, for resource-specific filters (e.g. a batch id). */
  extra?: { where: string; params: unknown[] };
}

export async function listCharges<B>(
  sql: Sql,
  f: ChargeListFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: ChargeRow<B>[]; total: number }> {
  const params: unknown[] = [f.accountId, f.kind, f.inicio, f.fim];
  let where = 'c.account_id = $1 and c.kind = $2 and c.created_at >= $3 and c.created_at <= $4';
  const add = (condition: string, value: unknown) => {
    params.push(value);
    where += ` and ${condition.replace('?', `$${params.length}`)}`;
  };
  if (f.cpf) add('c.devedor_cpf = ?', f.cpf);
  if (f.cnpj) add('c.devedor_cnpj = ?', f.cnpj);
  if (f.status) add('c.status = ?', f.status);
  if (f.locationPresente !== undefined) where += ` and c.location_id is ${f.locationPresente ? 'not ' : ''}null`;
  if (f.extra) {
    let condition = f.extra.where;
    for (const value of f.extra.params) {
      params.push(value);
      condition = condition.replace('?', `$${params.length}`);
    }
    where += ` and ${condition}`;
  }
  const count = await sql.query<{ n: number }>(`select count(*)::int as n from charges c where ${where}`, params);
  const { rows } = await sql.query<ChargeRow<B>>(
    `${SELECT} where ${where} order by c.created_at, c.id limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, pageSize, page * pageSize],
  );
  return { rows, total: count.rows[0].n };
}
