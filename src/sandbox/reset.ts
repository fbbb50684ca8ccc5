/**
 * `POST /sandbox/reset`: the caller's account as it was right after its creation — no charges, Pix, sends,
 * webhooks, reports, recurrences, billing charges or settings of its own, its first keys active again, its
 * clock on real time, a zero balance — with the same credentials. One transaction under the account's lock,
 * so a reset is all or nothing; what the account's own requests still in flight write after it commits stays
 * (docs/testing.md).
 */
import type { Database } from '../platform/db/database.ts';
import type { OffsetClock } from '../platform/clock.ts';
import { lockCustomer, post } from '../platform/ledger/ledger.ts';
import { randomUUID } from '../platform/ids.ts';
import { accountCreation, customerBalances, removeAccountRows } from './reset-store.ts';

/** The institution-side ledger account a reset's balances go to: the journal keeps summing to zero. */
const RESET_LEDGER_CODE = 'sandbox:reset';

export interface ResetOutcome {
  conta: string;
  /** What the account held across its ledger accounts, taken back to zero. */
  balanceCents: number;
  /** Rows removed per table. */
  removed: Record<string, number>;
}

export async function resetAccount(db: Database, clock: OffsetClock, accountId: number): Promise<ResetOutcome> {
  const outcome = await db.tx(async (sql) => {
    await lockCustomer(sql, accountId);
    const { createdAt, conta } = await accountCreation(sql, accountId);
    const balances = await customerBalances(sql, accountId);
    const balanceCents = balances.reduce((sum, b) => sum + b.cents, 0);
    if (balances.length)
      await post(sql, {
        kind: 'sandbox_reset',
        reference: randomUUID(),
        accountId,
        at: clock.now(),
        postings: [
          ...balances.map((b) => ({ code: b.code, amountCents: -b.cents })),
          { code: RESET_LEDGER_CODE, amountCents: balanceCents },
        ],
      });
    const removed = await removeAccountRows(sql, accountId, createdAt);
    return { conta, balanceCents, removed };
  });
  // The clock row is gone: this node forgets the offset now, the others at their next refresh.
  clock.setAccountOffsetMs(accountId, 0);
  return outcome;
}
