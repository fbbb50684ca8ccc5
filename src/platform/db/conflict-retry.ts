/**
 * Deadlocks and serialization failures are the database's to resolve, not the client's: PostgreSQL aborts one
 * transaction of a cycle and everything it wrote, so running it again is safe and almost always succeeds. The
 * retry is bounded (`LIMITS.conflictRetriesMax`), waits a random pause that grows with the attempt (two
 * transactions retried at the same instant would meet again), and stops at a request's deadline (deadline.ts).
 * Locks are taken in one global order (docs/ledger.md, "Lock order"), so a retry is the exception.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { LIMITS } from '../limits.ts';
import { deadlineRemainingMs } from './deadline.ts';

/** SQLSTATE 40001 serialization_failure, 40P01 deadlock_detected. */
export function isConflict(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === '40001' || code === '40P01';
}

/** Conflicts retried since the process started: the tests read it, an operator can too. */
export const conflictRetries = { count: 0 };

export async function retryingConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let retry = 1; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || retry > LIMITS.conflictRetriesMax) throw error;
      const pauseMs = Math.random() * LIMITS.conflictRetryJitterMaxMs * retry;
      const remainingMs = deadlineRemainingMs();
      if (remainingMs !== undefined && remainingMs <= pauseMs) throw error;
      conflictRetries.count++;
      await delay(pauseMs);
    }
  }
}
