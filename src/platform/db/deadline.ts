/**
 * A request's deadline, as the database sees it (docs/ledger.md, "Deadlines and retries"). The server gives
 * every request a deadline (src/server.ts); the database layer reads it from the async context of the work
 * it runs, so no service passes it along:
 *
 * - a transaction begun under a deadline bounds its statements by the time left (`set local
 *   statement_timeout`, in the same round trip as `begin`), checks the deadline before each statement and
 *   before `commit`, and rolls back when it has passed: the request answers 503 with nothing written;
 * - a transaction that sent its `commit` in time commits, and the request answers its outcome (late, perhaps).
 *
 * So a 503 always means "nothing happened", and an idempotent retry (the same idEnvio, the same refund id)
 * does the work once or answers the first outcome. Jobs run outside any request and have no deadline.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<{ deadlineAt: number }>();

/** Runs `work` (and everything it awaits) under a deadline, an instant of `Date.now()`. */
export function withDeadline<T>(deadlineAt: number, work: () => T): T {
  return current.run({ deadlineAt }, work);
}

/**
 * Runs `work` outside any deadline: what a request's commit wakes (the outbox workers, through the commit
 * notifications) is not that request's work and must not inherit its deadline.
 */
export function outsideDeadline<T>(work: () => T): T {
  return current.exit(work);
}

/** Milliseconds left to the deadline of the work running now (0 when passed); undefined without one. */
export function deadlineRemainingMs(): number | undefined {
  const store = current.getStore();
  return store === undefined ? undefined : Math.max(0, store.deadlineAt - Date.now());
}

/** The request ran out of its time before committing: nothing it did was written. */
export class DeadlineExceeded extends Error {
  constructor() {
    super('request deadline exceeded before commit; rolled back');
  }
}

/** Throws DeadlineExceeded if the running work's deadline has passed. */
export function checkDeadline(): void {
  if (deadlineRemainingMs() === 0) throw new DeadlineExceeded();
}

/** `statement_timeout` cancelled the statement (SQLSTATE 57014, query_canceled). */
export function isStatementCancelled(error: unknown): boolean {
  return (error as { code?: string })?.code === '57014';
}
