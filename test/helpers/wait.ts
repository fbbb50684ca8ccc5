import type { Sql } from '../../src/platform/db/database.ts';
import type { SpiRelay } from '../../src/platform/extensions.ts';

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
 * ordering key that waits for a retry is not due either (the workers' own claim rule). In a sandbox node, the
 * SPI institution in the node (`ctx.spiRelay`) is idle too: no pass in flight and no outbound message
 * unacknowledged, so the answers to sends, refunds and MED returns (pacs.002 to its pacs.008 and pacs.004) have
 * been applied. The positive signal a test waits for before it asserts that something did not happen. Moving the
 * clock forward makes later jobs due: wait again.
 */
export async function outboxIdle(svc: {
  service: { ctx: { db: Sql; spiRelay?: SpiRelay } };
  clock: { now(): Date };
}): Promise<void> {
  const relay = svc.service.ctx.spiRelay;
  await waitFor(async () => {
    // The relay's answers enqueue jobs and the jobs queue messages for the relay: idle is both at once, with no
    // pass begun while the outbox was read.
    const passes = relay?.passes;
    if (relay && !(await relay.idle())) return false;
    const { rows } = await svc.service.ctx.db.query<{ due: boolean }>(
      `select exists (
         select 1 from outbox o
         where o.done_at is null and o.available_at <= $1
           and (o.ordering_key is null or not exists (
             select 1 from outbox p where p.ordering_key = o.ordering_key and p.id < o.id and p.done_at is null))
       ) as due`,
      [svc.clock.now()],
    );
    if (rows[0].due) return false;
    return !relay || (relay.passes === passes && (await relay.idle()));
  }, 'the outbox to have nothing due and the SPI institution in the node to be idle');
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
