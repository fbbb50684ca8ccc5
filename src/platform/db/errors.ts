/**
 * Database errors that say the database is out of reach (a dropped connection, a restart, a failover,
 * too many connections), as opposed to errors about one statement. Only the work that used the
 * connection fails, with 503 so clients retry; the node keeps serving and reconnects by itself.
 */

/**
 * SQLSTATE classes and codes of an unreachable database: 08 connection exception, 57P0x shutdown, 53300, and
 * 25006 (a write on a read-only server: pixd never opens read-only transactions, so the server it reached
 * was demoted to a standby by a failover; the node looks for the new primary, hosts.ts).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P01|57P02|57P03|53300|25006)$/;
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);
/** node-postgres reports a socket that closed under a query by message only. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|Client has encountered a connection error|Client was closed|is not currently accepting connections/;

export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE_CODES.has(code)) return true;
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message);
}

/** Unique index violated: the last line of idempotency checks (duplicate txid, second payment of a charge). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === '23505';
}
