/**
 * The ledger's invariants, recomputed from the journal lines: the whole journal sums to zero, every entry
 * sums to zero, and every posted total equals the sum of its account's lines. Used by `pixd ledger verify`
 * (through the operator API) and by the tests after every scenario that moves money.
 */
import type { Sql } from '../db/database.ts';
import { LIMITS } from '../limits.ts';

export interface TotalMismatch {
  code: string;
  totalCents: number;
  linesCents: number;
}

export interface LedgerVerification {
  ok: boolean;
  /** Sum of every journal line; zero in a sound ledger. */
  journalCents: number;
  /** Entries whose own lines do not sum to zero. */
  unbalancedEntries: number;
  /** Customer ledger accounts whose posted total was compared with its lines. */
  accountsChecked: number;
  /** Accounts whose posted total differs from its lines (at most `LIMITS.ledgerVerifyMismatchesListedMax`). */
  mismatches: TotalMismatch[];
  mismatchCount: number;
}

/** One statement, so the three checks read one snapshot even while payments are being written. */
export async function verifyLedger(sql: Sql): Promise<LedgerVerification> {
  const { rows } = await sql.query<{
    journal_cents: number;
    unbalanced_entries: number;
    accounts_checked: number;
    mismatch_count: number;
    mismatches: TotalMismatch[];
  }>(
    `with sums as (select ledger_account_id, sum(amount_cents) as lines_cents from journal_lines group by ledger_account_id),
     mismatched as (
       select a.code, a.balance_cents as total_cents, coalesce(s.lines_cents, 0) as lines_cents
         from ledger_accounts a left join sums s on s.ledger_account_id = a.id
        where a.balance_cents is not null and a.balance_cents <> coalesce(s.lines_cents, 0))
     select
       (select coalesce(sum(lines_cents), 0) from sums)::bigint as journal_cents,
       (select count(*) from (select 1 from journal_lines group by entry_id having sum(amount_cents) <> 0) u)::bigint as unbalanced_entries,
       (select count(*) from ledger_accounts where balance_cents is not null)::bigint as accounts_checked,
       (select count(*) from mismatched)::bigint as mismatch_count,
       (select coalesce(json_agg(json_build_object('code', m.code, 'totalCents', m.total_cents, 'linesCents', m.lines_cents)), '[]'::json)
          from (select * from mismatched order by code limit $1) m) as mismatches`,
    [LIMITS.ledgerVerifyMismatchesListedMax],
  );
  const r = rows[0];
  const mismatches = r.mismatches.map((m) => ({
    code: m.code,
    totalCents: Number(m.totalCents),
    linesCents: Number(m.linesCents),
  }));
  return {
    ok: r.journal_cents === 0 && r.unbalanced_entries === 0 && r.mismatch_count === 0,
    journalCents: r.journal_cents,
    unbalancedEntries: r.unbalanced_entries,
    accountsChecked: r.accounts_checked,
    mismatches,
    mismatchCount: r.mismatch_count,
  };
}

/** The verification as an operator reads it: one line when sound, the differences otherwise. */
export function describeVerification(v: LedgerVerification): string {
  if (v.ok) return `ledger ok: journal sums to zero, ${v.accountsChecked} posted totals equal their lines`;
  const lines = [`ledger NOT ok:`];
  if (v.journalCents !== 0) lines.push(`  the journal sums to ${v.journalCents} cents, not zero`);
  if (v.unbalancedEntries) lines.push(`  ${v.unbalancedEntries} journal entries do not sum to zero`);
  if (v.mismatchCount) {
    lines.push(`  ${v.mismatchCount} of ${v.accountsChecked} posted totals differ from their lines:`);
    for (const m of v.mismatches) lines.push(`    ${m.code}: total ${m.totalCents}, lines ${m.linesCents}`);
  }
  return lines.join('\n');
}
