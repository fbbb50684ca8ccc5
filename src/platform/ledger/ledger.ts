/**
 * The double-entry journal. Every balance change is an entry whose lines sum to zero. Each customer
 * ledger account carries its posted total, updated by the statement that writes the lines, so a balance
 * costs one indexed row read whatever the history; the lines are the audit trail (`verifyLedger`).
 * The institution's own accounts keep no total (see migration 013). Ledger accounts are named by code:
 *   customer:<id>:available | customer:<id>:blocked:judicial | customer:<id>:blocked:med
 *   customer:<id>:sending (sent Pix held while in processing, src/pix/send)
 *   customer:<id>:bills (bill payments held from their request until they settle or fail, src/billing/bills)
 *   external:pix  (the rest of the Pix system: money that came from or went to other institutions)
 *   external:card (the card acquirer: card payments come from it, card refunds go back to it)
 *   external:boleto (boleto compensation: a boleto paid by barcode is credited from it on the next business day;
 *                 a payer paying a bill from its balance here pays into it)
 *   revenue:fees  (what the institution earns)
 */
import type { Sql } from '../db/database.ts';
import { assertCents } from '../money.ts';
import { moneyMoved } from '../logging.ts';

export type BlockKind = 'judicial' | 'med';

export const ledgerCode = {
  available: (accountId: number) => `customer:${accountId}:available`,
  blocked: (accountId: number, kind: BlockKind) => `customer:${accountId}:blocked:${kind}`,
  /** Sent Pix in processing: held out of the available balance until they settle or are returned. */
  sending: (accountId: number) => `customer:${accountId}:sending`,
  /** Bill payments requested: held out of the available balance until they settle or fail. */
  bills: (accountId: number) => `customer:${accountId}:bills`,
  externalPix: 'external:pix',
  externalCard: 'external:card',
  externalBoleto: 'external:boleto',
  fees: 'revenue:fees',
} as const;

/**
 * `ledgerCode.available` as a SQL expression over an account id expression, for statements that resolve a
 * customer's ledger account beside other rows (the settlement read, src/pix/payments/store.ts).
 */
export const availableCodeSql = (accountId: string) => `'customer:' || ${accountId} || ':available'`;

export interface Posting {
  code: string;
  amountCents: number;
}

export class LedgerInvariantError extends Error {}

/**
 * A posting would take a customer balance below zero. Callers check the balance under `lockCustomer`
 * before debiting, so reaching this means a path that forgot to: the database constraint refuses the
 * whole transaction instead of letting money appear from nowhere.
 */
export class InsufficientBalance extends LedgerInvariantError {}

const BALANCE_NOT_NEGATIVE = 'ledger_accounts_balance_not_negative';

/**
 * Ids of the ledger accounts, created on first use. Resolving never locks an existing account: an
 * upsert would lock `external:pix` for the whole transaction and make every payment queue behind it.
 * Exported for the batched settlements, which resolve them before their one statement.
 */
export async function ledgerAccountIds(sql: Sql, codes: string[]): Promise<Map<string, number>> {
  const unique = [...new Set(codes)];
  const select = async () => {
    const { rows } = await sql.query<{ id: number; code: string }>(
      'select id, code from ledger_accounts where code = any($1)',
      [unique],
    );
    return new Map(rows.map((r) => [r.code, r.id]));
  };
  let ids = await select();
  const missing = unique.filter((code) => !ids.has(code));
  if (missing.length) {
    const owners = missing.map((code) => /^customer:(\d+):/.exec(code)?.[1] ?? null);
    // Customer accounts start with a posted total of zero; the institution's accounts keep none.
    await sql.query(
      `insert into ledger_accounts (code, account_id, balance_cents)
       select code, owner::bigint, case when owner is null then null else 0 end from unnest($1::text[], $2::text[]) as t(code, owner)
       on conflict (code) do nothing`,
      [missing, owners],
    );
    // Rows another transaction created first are visible once it commits; ours are visible now.
    ids = await select();
  }
  return ids;
}

/** Writes one journal entry. Throws before writing anything if the postings do not sum to zero. */
export async function post(
  sql: Sql,
  entry: { kind: string; reference: string; accountId: number | null; at: Date; postings: Posting[] },
): Promise<number> {
  let sum = 0;
  for (const p of entry.postings) {
    assertCents(p.amountCents);
    if (p.amountCents === 0) throw new LedgerInvariantError(`zero posting to ${p.code} in ${entry.kind}`);
    sum += p.amountCents;
  }
  if (sum !== 0 || entry.postings.length < 2)
    throw new LedgerInvariantError(`journal entry ${entry.kind} ${entry.reference} does not balance (sum ${sum})`);
  const ids = await ledgerAccountIds(
    sql,
    entry.postings.map((p) => p.code),
  );
  // The entry, its lines and the posted totals in one statement: one round trip whatever the number of
  // postings, and no total can drift from its lines. Data-modifying CTEs all run to completion.
  let rows: { id: number }[];
  try {
    ({ rows } = await sql.query<{ id: number }>(
      `with e as (insert into journal_entries (kind, reference, account_id, created_at) values ($1, $2, $3, $4) returning id),
       lines as (
         insert into journal_lines (entry_id, ledger_account_id, amount_cents)
         select e.id, l.ledger_account_id, l.amount_cents from e, unnest($5::bigint[], $6::bigint[]) as l(ledger_account_id, amount_cents)
         returning ledger_account_id),
       ${postedTotalsCtes(
         'totals',
         `select ledger_account_id, sum(amount_cents) as delta_cents
                 from unnest($5::bigint[], $6::bigint[]) as l(ledger_account_id, amount_cents) group by ledger_account_id`,
       )}
       select id from e`,
      [
        entry.kind,
        entry.reference,
        entry.accountId,
        entry.at,
        entry.postings.map((p) => ids.get(p.code)),
        entry.postings.map((p) => p.amountCents),
      ],
    ));
  } catch (error) {
    throw asLedgerError(error, entry);
  }
  moneyMoved(sql, {
    kind: entry.kind,
    reference: entry.reference,
    accountId: entry.accountId,
    amountCents: entry.postings.reduce((size, p) => size + Math.max(p.amountCents, 0), 0),
  });
  return rows[0].id;
}

/** A statement that posted refused by the balance constraint becomes InsufficientBalance; anything else as is. */
export function asLedgerError(error: unknown, entry: { kind: string; reference: string }): unknown {
  if ((error as { constraint?: string }).constraint === BALANCE_NOT_NEGATIVE)
    return new InsufficientBalance(`journal entry ${entry.kind} ${entry.reference} would overdraw a customer balance`);
  return error;
}

/**
 * For a statement that writes a two-line entry among other rows (a send's hold and its settlement,
 * src/pix/send/store.ts): the CTEs `entry`, `lines` and `totals`, what `transfer` writes in its statement.
 * The entry is written once if the CTE `guard` returns a row, else nothing is. Every argument is SQL text
 * (placeholders or expressions); `fromId` and `toId` are the two ledger accounts' ids, which must differ.
 * Callers pass `asLedgerError` what the statement throws.
 */
export function transferCtes(p: {
  guard: string;
  kind: string;
  reference: string;
  accountId: string;
  at: string;
  fromId: string;
  toId: string;
  amountCents: string;
}): string {
  const postings = `(values (${p.fromId}::bigint, -(${p.amountCents})::bigint), (${p.toId}::bigint, (${p.amountCents})::bigint)) as l(ledger_account_id, amount_cents)`;
  return `entry as (
       insert into journal_entries (kind, reference, account_id, created_at)
       select ${p.kind}, ${p.reference}, ${p.accountId}, ${p.at} from ${p.guard} returning id),
     lines as (
       insert into journal_lines (entry_id, ledger_account_id, amount_cents)
       select entry.id, l.ledger_account_id, l.amount_cents from entry, ${postings}),
     ${postedTotalsCtes('totals', `select l.ledger_account_id, l.amount_cents as delta_cents from entry, ${postings}`)}`;
}

/**
 * The CTEs `entry`, `lines` and `totals` of many entries in one statement (a batch of card confirmations,
 * src/billing/charges/store.ts; a batch of answers to sends, src/spi/answer-store.ts): `postings` names a CTE
 * answering (kind, reference, ledger_account_id, amount_cents), each (kind, reference) one entry whose lines sum
 * to zero. `accountId` and `at` are SQL text: constants for entries of one account, or columns of the postings'
 * row `p` that an entry's lines share. Callers pass `asLedgerError` what the statement throws.
 */
export function entriesCtes(p: { postings: string; accountId: string; at: string }): string {
  return `entry as (
       insert into journal_entries (kind, reference, account_id, created_at)
       select distinct p.kind, p.reference, ${p.accountId}, ${p.at} from ${p.postings} p
       returning id, kind, reference),
     lines as (
       insert into journal_lines (entry_id, ledger_account_id, amount_cents)
       select entry.id, p.ledger_account_id, p.amount_cents
         from entry join ${p.postings} p on p.kind = entry.kind and p.reference = entry.reference),
     ${postedTotalsCtes(
       'totals',
       `select ledger_account_id, sum(amount_cents) as delta_cents from ${p.postings} group by ledger_account_id`,
     )}`;
}

/**
 * The CTEs that add `deltas` (SQL of a query answering `ledger_account_id, delta_cents`, one row per ledger
 * account) to the posted totals, in the global lock order (docs/ledger.md, "Lock order"): the rows are locked
 * by an ordered `for no key update` first (`<name>_locked`), then updated (`<name>`), so two statements that
 * credit the same accounts lock them in the same order whatever plan either runs. Institution accounts keep
 * no total and are neither locked nor updated.
 */
export function postedTotalsCtes(name: string, deltas: string): string {
  return `${name}_locked as materialized (
       select a.id, d.delta_cents from ledger_accounts a join (${deltas}) d on d.ledger_account_id = a.id
       where a.balance_cents is not null order by a.id for no key update of a),
     ${name} as (
       update ledger_accounts a set balance_cents = a.balance_cents + l.delta_cents
       from ${name}_locked l where a.id = l.id returning a.id)`;
}

/**
 * The ledger part of a settlement statement (the charges' and the recurring charges' writes): for each row of
 * the CTE `input` (end_to_end_id, account_id, amount_cents, received_at, external_id, available_id) whose Pix
 * the statement inserted (CTE `pix`, returning end_to_end_id), a `pix_recebido` entry shaped as `post()`
 * writes it (two lines summing to zero) and the receivers' posted totals, locked in id order. Callers log each
 * entry with `moneyMoved`.
 */
export const PIX_RECEIVED_POSTING = `entry as (
       insert into journal_entries (kind, reference, account_id, created_at)
       select 'pix_recebido', i.end_to_end_id, i.account_id, i.received_at
       from input i join pix on pix.end_to_end_id = i.end_to_end_id
       returning id, reference),
     lines as (
       insert into journal_lines (entry_id, ledger_account_id, amount_cents)
       select entry.id, l.ledger_account_id, l.amount_cents
       from entry join input i on i.end_to_end_id = entry.reference,
         lateral (values (i.external_id, -i.amount_cents), (i.available_id, i.amount_cents)) as l(ledger_account_id, amount_cents)),
     ${postedTotalsCtes(
       'totals',
       `select i.available_id as ledger_account_id, sum(i.amount_cents) as delta_cents
          from input i join pix on pix.end_to_end_id = i.end_to_end_id group by i.available_id`,
     )}`;

/** Moves money from one ledger account to another (the common two-line entry). */
export function transfer(
  sql: Sql,
  args: {
    kind: string;
    reference: string;
    accountId: number | null;
    at: Date;
    from: string;
    to: string;
    amountCents: number;
  },
) {
  return post(sql, {
    kind: args.kind,
    reference: args.reference,
    accountId: args.accountId,
    at: args.at,
    postings: [
      { code: args.from, amountCents: -args.amountCents },
      { code: args.to, amountCents: args.amountCents },
    ],
  });
}

/**
 * A ledger account's balance. A customer account's is its posted total: one row read whatever the
 * history. An institution account keeps no total (migration 013), so its balance is the sum of its
 * lines; no hot path reads one.
 */
export async function balanceCents(sql: Sql, code: string): Promise<number> {
  const { rows } = await sql.query<{ balance_cents: number | null }>(
    'select balance_cents from ledger_accounts where code = $1',
    [code],
  );
  if (!rows[0]) return 0;
  if (rows[0].balance_cents !== null) return rows[0].balance_cents;
  const lines = await sql.query<{ total: number }>(
    `select coalesce(sum(l.amount_cents), 0)::bigint as total from journal_lines l join ledger_accounts a on a.id = l.ledger_account_id where a.code = $1`,
    [code],
  );
  return lines.rows[0].total;
}

/**
 * Serialises money movements of one customer: taken before reading a balance that a debit depends on,
 * so two concurrent refunds cannot both see the same funds. `lockCustomers` of one.
 */
export function lockCustomer(sql: Sql, accountId: number): Promise<void> {
  return lockCustomers(sql, [accountId]);
}

/**
 * The customers' locks of a transaction that moves money of several accounts (a send between two accounts of
 * this pixd, a refund that reaches a pixd payer), taken at its start, before any posting, in the global lock
 * order (docs/ledger.md, "Lock order"): the account rows in id order, then those accounts' posted totals in id
 * order. Rows are locked as the sort returns them; the accounts first, because the totals' sort reads them all
 * before it returns a row. `for no key update`: it serialises the customer's money movements as `for update`
 * did, but does not block the key-share locks that inserting a row referencing the account takes (a received
 * Pix, a journal entry, an outbox row): the settlement statement, which takes no customer lock, never waits on
 * one, so it cannot close a cycle with a transaction holding one.
 */
export async function lockCustomers(sql: Sql, accountIds: number[]): Promise<void> {
  await sql.query(
    `with customers as materialized (select id from accounts where id = any($1) order by id for no key update)
     select a.id from ledger_accounts a join customers c on c.id = a.account_id
     where a.balance_cents is not null order by a.id for no key update of a`,
    [accountIds],
  );
}
