/**
 * Every delivery attempt is recorded: when (service clock), where, the HTTP status, latency and error, and
 * the start of the body sent and of the receiver's answer (transport.ts cuts them).
 * Rows of attempts finishing together are written by one multi-row insert (a group commit), and each
 * caller is answered only once its row is stored. A successful attempt's delivery is marked done in the
 * same transaction as its record: once that commits no node sends it again, so a duplicate needs the node
 * to die between the receiver's answer and this commit (docs/webhooks.md, "Duplicates").
 *
 * Locks: an attempt row's foreign key takes a key-share lock on its account's row, which payments lock
 * (`for no key update`, docs/ledger.md) in account-id order; the rows are inserted in that order, then the
 * outbox rows are locked in id order, so a batch never waits on a payment in a circle. A conflict that happens
 * anyway runs the batch again (db.tx retries conflicts, conflict-retry.ts): a lost record would resend a
 * delivered event.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Sql } from '../db/database.ts';
import type { Clock } from '../clock.ts';
import { markJobsDone } from '../outbox/jobs.ts';
import type { BodyExcerpt } from './transport.ts';

export interface AttemptRecord {
  /** The delivery (outbox job); marked done with the record when `marksDone` (a success that ends the job). */
  outboxId: number;
  accountId: number;
  topic: string;
  url: string;
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  request: BodyExcerpt | undefined;
  response: BodyExcerpt | undefined;
  marksDone: boolean;
}

const COLUMNS = 13;
/** Rows per insert: 13 parameters each stays far below PostgreSQL's 65,535-parameter limit. */
const MAX_ROWS_PER_INSERT = 500;

async function insertAttempts(sql: Sql, records: AttemptRecord[]): Promise<void> {
  const params: unknown[] = [];
  const tuples = records.map((r, i) => {
    params.push(
      r.outboxId,
      r.accountId,
      r.topic,
      r.url,
      r.attempt,
      r.attemptedAt,
      r.statusCode,
      r.latencyMs,
      r.error,
      r.request?.text ?? null,
      r.request?.bytes ?? null,
      r.response?.text ?? null,
      r.response?.bytes ?? null,
    );
    return `(${Array.from({ length: COLUMNS }, (_, k) => `$${i * COLUMNS + k + 1}`).join(', ')})`;
  });
  await sql.query(
    `insert into webhook_attempts (outbox_id, account_id, topic, url, attempt, attempted_at, status_code, latency_ms, error,
       request_body, request_bytes, response_body, response_bytes) values ${tuples.join(', ')}`,
    params,
  );
}

export class AttemptRecorder {
  private pending: { record: AttemptRecord; resolve(): void; reject(error: unknown): void }[] = [];
  private scheduled = false;

  /** Set when the deliveries start: one line per stored attempt, the outcome an operator looks for first. */
  log: FastifyBaseLogger | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  record(record: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ record, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending.splice(0, MAX_ROWS_PER_INSERT);
    if (this.pending.length && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    try {
      const records = batch.map((p) => p.record).sort((a, b) => a.accountId - b.accountId || a.outboxId - b.outboxId);
      const delivered = records.filter((r) => r.marksDone).map((r) => r.outboxId);
      await this.db.tx(async (sql) => {
        await insertAttempts(sql, records);
        await markJobsDone(sql, delivered, this.clock.now());
      });
      for (const p of batch) {
        logAttempt(this.log, p.record);
        p.resolve();
      }
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }
}

function logAttempt(log: FastifyBaseLogger | undefined, r: AttemptRecord): void {
  if (!log) return;
  // Without the query string: a receiver's URL may carry its own token there.
  const line = {
    outboxId: r.outboxId,
    accountId: r.accountId,
    topic: r.topic,
    url: r.url.split('?', 1)[0],
    attempt: r.attempt,
    statusCode: r.statusCode,
    latencyMs: r.latencyMs,
  };
  if (r.error === null) log.info(line, 'webhook delivered');
  else log.warn({ ...line, error: r.error }, 'webhook attempt failed');
}

/**
 * Failed attempts of one delivery that count towards its schedule: an attempt aborted by this node's
 * shutdown does not, nor does a claim whose node died before recording anything.
 */
export async function countedFailures(sql: Sql, outboxId: number): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from webhook_attempts where outbox_id = $1 and error is not null and error not like 'aborted:%'`,
    [outboxId],
  );
  return rows[0].n;
}

export interface AttemptRow {
  outbox_id: number;
  attempt: number;
  url: string;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  request_body: string | null;
  request_bytes: number | null;
  response_body: string | null;
  response_bytes: number | null;
}

export async function attemptsOf(sql: Sql, outboxIds: number[]): Promise<AttemptRow[]> {
  if (!outboxIds.length) return [];
  const { rows } = await sql.query<AttemptRow>(
    `select outbox_id, attempt, url, attempted_at, status_code, latency_ms, error,
            request_body, request_bytes, response_body, response_bytes
       from webhook_attempts where outbox_id = any($1) order by outbox_id, id`,
    [outboxIds],
  );
  return rows;
}
