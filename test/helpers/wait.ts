import type { Sql } from '../../src/platform/db/database.ts';

/** Polls until `check` returns a truthy value or the time runs out (asynchronous work: outbox jobs). */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false | null>,
  what: string,
  timeoutMs = 15_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/**
 * Waits until the outbox has nothing due at the service clock's now: every job that was due (jobs running,
 * webhook deliveries in flight, and the follow-up jobs they enqueued, which commit before their parent is
 * marked done) has finished or been rescheduled for later. A job queued behind an earlier one of its
 * ordering key that waits for a retry is not due either (the workers' own claim rule). The positive signal a test waits for before it
 * asserts that something did not happen. Moving the clock forward makes later jobs due: wait again.
 */
export async function outboxIdle(svc: { service: { ctx: { db: Sql } }; clock: { now(): Date } }): Promise<void> {
  await waitFor(async () => {
    const { rows } = await svc.service.ctx.db.query<{ due: boolean }>(
      `select exists (
         select 1 from outbox o
         where o.done_at is null and o.available_at <= $1
           and (o.ordering_key is null or not exists (
             select 1 from outbox p where p.ordering_key = o.ordering_key and p.id < o.id and p.done_at is null))
       ) as due`,
      [svc.clock.now()],
    );
    return !rows[0].due;
  }, 'the outbox to have nothing due');
}

/**
 * Waits until more than `windowMs` of wall time have passed since `sinceMs`: for a window the server keeps on
 * the wall clock and nothing else tells the end of (deliveries share a key's settings for
 * WEBHOOK_LOOKUP_SHARED_MS, src/pix/webhook/events.ts). Take `sinceMs` once the change was acknowledged.
 */
export async function wallWindowPassed(sinceMs: number, windowMs: number): Promise<void> {
  const left = sinceMs + windowMs + 1 - Date.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
}
