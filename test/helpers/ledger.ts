/** Ledger invariants, asserted after every money scenario. */
import assert from 'node:assert/strict';
import type { Sql } from '../../src/platform/db/database.ts';
import { balanceCents, ledgerCode } from '../../src/platform/ledger/ledger.ts';
import { parseAmount } from '../../src/platform/money.ts';

export async function assertLedgerBalanced(sql: Sql): Promise<void> {
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
