/**
 * Sandbox clock control, per account. Each account's offset is a row of `sandbox_clocks`, so every node
 * agrees; each node caches the offsets and refreshes them on a short interval (see runtime), and the node
 * that moves a clock updates its cache at once.
 *
 * Moving an account's clock shifts that account's pending outbox jobs by the same amount in the same
 * transaction: jobs are stored on the service's time (see `enqueue`), so a retry or a schedule due in
 * the account's time becomes claimable exactly when the account's clock passes it, and nobody else's
 * jobs move.
 */
import type { Database, Sql } from '../platform/db/database.ts';
import type { OffsetClock } from '../platform/clock.ts';
import { OUTBOX_CHANNEL, shiftAccountJobs } from '../platform/outbox/jobs.ts';

/** Bounds a single move so a typo cannot push an account centuries ahead. */
export const CLOCK_ADVANCE_MAX_SECONDS = 5 * 365 * 86_400;

/** Every account clock that was moved (the others are on the service's time). */
async function readAccountOffsets(sql: Sql): Promise<Map<number, number>> {
  const { rows } = await sql.query<{ account_id: string | number; offset_ms: string | number }>(
    'select account_id, offset_ms from sandbox_clocks where offset_ms <> 0',
  );
  return new Map(rows.map((r) => [Number(r.account_id), Number(r.offset_ms)]));
}

export function loadAccountClocks(sql: Sql, clock: OffsetClock): Promise<void> {
  return clock.refreshAccountOffsets(() => readAccountOffsets(sql));
}

/** Moves one account's clock by `deltaMs` (back when negative) and its pending jobs with it. */
async function moveAccountClock(
  db: Database,
  clock: OffsetClock,
  accountId: number,
  deltaMs: (currentMs: number) => number,
): Promise<number> {
  const offsetMs = await db.tx(async (sql) => {
    // The row lock orders this move with enqueues converting this account's times (they read it `for share`).
    const { rows } = await sql.query<{ offset_ms: string | number }>(
      `insert into sandbox_clocks (account_id, offset_ms, updated_at) values ($1, 0, now())
       on conflict (account_id) do update set updated_at = now()
       returning offset_ms`,
      [accountId],
    );
    const current = Number(rows[0].offset_ms);
    const delta = deltaMs(current);
    await sql.query('update sandbox_clocks set offset_ms = $2 where account_id = $1', [accountId, current + delta]);
    // Jobs that just came due run now, not at the workers' next idle poll.
    if (delta !== 0) sql.notifyAfterCommit(OUTBOX_CHANNEL);
    if (delta !== 0) await shiftAccountJobs(sql, accountId, delta);
    return current + delta;
  });
  clock.setAccountOffsetMs(accountId, offsetMs);
  return offsetMs;
}

export function advanceAccountClock(db: Database, clock: OffsetClock, accountId: number, seconds: number) {
  return moveAccountClock(db, clock, accountId, () => seconds * 1000);
}

/** Back to real time; pending jobs keep their instant on the account's time. */
export function resetAccountClock(db: Database, clock: OffsetClock, accountId: number) {
  return moveAccountClock(db, clock, accountId, (current) => -current);
}
