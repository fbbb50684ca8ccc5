import type { Sql } from '../../platform/db/database.ts';

/**
 * Hooks other features add to refuse refunds (e.g. a Pix passed on through a split). Its own module: the split
 * step that provides one runs inside the payment engine, which the refund service reaches through its jobs.
 */
export type RefundGuard = (sql: Sql, receivedPixId: number) => Promise<string | undefined>;
