/** Ledger invariants, asserted after every money scenario. */
import assert from 'node:assert/strict';
import type { Sql } from '../../src/platform/db/database.ts';
import { balanceCents, ledgerCode } from '../../src/platform/ledger/ledger.ts';
import { parseAmount } from '../../src/platform/money.ts';
import { describeVerification, verifyLedger } from '../../src/platform/ledger/verify.ts';

/**
 * The journal sums to zero, every entry sums to zero, and every posted total equals its lines: checked
 * here with independent queries, and again through `verifyLedger`, the check `pixd ledger verify` runs.
 */
export async function assertLedgerBalanced(sql: Sql): Promise<void> {
  const totals = await sql.query<{ code: string; balance_cents: number; lines_cents: number }>(
    `select a.code, a.balance_cents, (select coalesce(sum(amount_cents), 0) from journal_lines l where l.ledger_account_id = a.id)::bigint as lines_cents
       from ledger_accounts a where a.balance_cents is not null`,
  );
  for (const t of totals.rows)
    assert.equal(t.balance_cents, t.lines_cents, `posted total of ${t.code} equals its lines`);
  const verification = await verifyLedger(sql);
  assert.ok(verification.ok, describeVerification(verification));
  const total = await sql.query<{ total: number }>(
    'select coalesce(sum(amount_cents), 0)::bigint as total from journal_lines',
  );
  assert.equal(total.rows[0].total, 0, 'the whole journal sums to zero');
  const unbalanced = await sql.query(
    'select entry_id from journal_lines group by entry_id having sum(amount_cents) <> 0',
  );
  assert.equal(unbalanced.rows.length, 0, 'every journal entry sums to zero');
}

/** The balance the API reports equals the sum of the account's lines, recomputed here independently. */
export async function assertBalanceMatchesLines(sql: Sql, accountId: number, reportedSaldo: string): Promise<void> {
  const lines = await sql.query<{ total: number }>(
    `select coalesce(sum(l.amount_cents), 0)::bigint as total from journal_lines l join ledger_accounts a on a.id = l.ledger_account_id where a.code = $1`,
    [ledgerCode.available(accountId)],
  );
  assert.equal(lines.rows[0].total, await balanceCents(sql, ledgerCode.available(accountId)));
  assert.equal(parseAmount(reportedSaldo), lines.rows[0].total, 'saldo equals the journal lines');
}
