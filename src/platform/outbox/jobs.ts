/**
 * What a job is and how one is written: topics (name, payload type and handler factory together), the
 * outcomes a handler answers, and `enqueue`, which writes a job in the caller's transaction. The workers that
 * claim and run them are in outbox.ts.
 *
 * Times: a job of an account (`accountId`) is enqueued, and retried, at instants of that account's clock
 * (`clock.forAccount`), which the sandbox can move per account. It is stored on the service's time:
 * `enqueue` subtracts the account's clock offset, and moving an account's clock shifts its pending jobs
 * by the same amount (src/sandbox/clock.ts). So the claim is a plain comparison with the service's now, and
 * a retry fast-forwards when its own account's clock is moved, not when another's is.
 */
import type { Database, Sql } from '../db/database.ts';
import type { Clock } from '../clock.ts';

export interface OutboxJob<P = Record<string, unknown>> {
  id: number;
  topic: string;
  payload: P;
  /** 1 on the first attempt. */
  attempt: number;
  createdAt: Date;
  /** The account whose clock the job's times are on (null: the service's own job). */
  accountId: number | null;
  /** The previous attempt's handler threw (the worker sets it when it claims the job). */
  failedUnexpectedly?: boolean;
}

/**
 * What a handler decided: finished, try again at a time, or stop trying (the error is kept). `marked`: the
 * handler already marked the job done in its own transaction (`markJobsDone`), with the record of what it did.
 */
export type JobOutcome = { done: true; marked?: true } | { retryAt: Date; error: string } | { giveUp: string };

export type JobHandler<P = unknown> = (job: OutboxJob<P>) => Promise<JobOutcome>;

/** What most handlers need: the database and the service clock (the runtime passes its whole context). */
export interface JobDeps {
  db: Database;
  clock: Clock;
}

/**
 * A topic: its name, the type of its payload and the handler of its jobs together. The handler is built
 * from what it needs (`D`) when the runtime registers the topic on a worker (src/jobs.ts); enqueuers only
 * name the topic, and `enqueue` checks the payload against it.
 */
export interface TopicDefinition<P, D = JobDeps> {
  readonly name: string;
  readonly handler: (deps: D) => JobHandler<P>;
}

/** A topic as an enqueuer sees it, whatever its handler needs. */
export type Topic<P> = TopicDefinition<P, never>;

/** Any topic whose handler can be built from `D`: what a worker registers. */
export type AnyTopic<D> = TopicDefinition<never, D>;

export function defineTopic<P, D = JobDeps>(definition: TopicDefinition<P, D>): TopicDefinition<P, D> {
  return definition;
}

/** The commit notification channel of enqueued jobs: the runtime wakes the workers on it. */
export const OUTBOX_CHANNEL = 'outbox';

/**
 * An account's clock offset as SQL over a parameter holding the account id: what turns an instant of the
 * account's time into the service's. `enqueue` reads it `for share`, so a clock move (which updates the row)
 * and the conversion are ordered: a job either is converted with the new offset or is shifted by the move.
 * A retry does not: it holds its job's row while a move holding the clock's row waits for that job's row,
 * which would deadlock; a retry rescheduled during a move of its account's clock may miss that move.
 */
export const accountOffset = (accountParam: string, lock: 'for share' | '' = '') =>
  `coalesce((select c.offset_ms from sandbox_clocks c where c.account_id = ${accountParam} ${lock}), 0) * interval '1 millisecond'`;

/**
 * A job to write. `accountId`: the account the job belongs to, whose clock `availableAt` and `now` were read
 * on; null for the service's own jobs.
 */
export interface NewJob<P> {
  topic: Topic<P>;
  payload: NoInfer<P>;
  orderingKey?: string;
  accountId: number | null;
  availableAt: Date;
  now: Date;
}

/** Writes a job in the caller's transaction; once that commits, the workers are woken (no manual wake). */
export async function enqueue<P>(sql: Sql, job: NewJob<P>): Promise<number> {
  const values = outboxRowValues(job);
  const { rows } = await sql.query<{ id: number }>(
    job.accountId === null
      ? `insert into outbox (topic, ordering_key, payload, available_at, created_at) values ($1, $2, $3::jsonb, $4, $5) returning id`
      : `insert into outbox (topic, ordering_key, payload, available_at, created_at, account_id)
         values ($1, $2, $3::jsonb, $4::timestamptz - ${accountOffset('$6', 'for share')}, $5, $6) returning id`,
    job.accountId === null ? values.slice(0, 5) : values,
  );
  jobsEnqueued(sql, job.topic);
  return rows[0].id;
}

/**
 * For a statement that writes an outbox row among other rows (the settlement statement,
 * src/pix/payments/store.ts): the values of `topic, ordering_key, payload (jsonb), available_at, created_at,
 * account_id`, in that order. `available_at` is on the account's clock: such a statement stores it on the
 * service's, less `accountOffset` of the row's account, as `enqueue` does. Whoever writes the row calls
 * `jobsEnqueued` after the statement, as `enqueue` does.
 */
export function outboxRowValues<P>(job: NewJob<P>): [string, string | null, string, Date, Date, number | null] {
  return [
    job.topic.name,
    job.orderingKey ?? null,
    JSON.stringify(job.payload),
    job.availableAt,
    job.now,
    job.accountId,
  ];
}

/**
 * The outbox's insert for a statement that writes its jobs among other rows (the settlement statements, a
 * send's hold and outcome): `insert into outbox … select … from <from>`, one row per row of `from`. Every
 * field is SQL text over `from` (placeholders or columns), as `outboxRowValues` orders them; `availableAt` is
 * on the account's clock and is stored on the service's, less `accountOffset` (read `for share` when `lock`
 * says so, as `enqueue` does). `doneWhen`: a condition under which the row is stored done at once (an event
 * nobody receives, docs/ledger.md). Whoever writes the row calls `jobsEnqueued` after the statement.
 */
export function outboxInsertSql(row: {
  topic: string;
  orderingKey: string;
  payload: string;
  availableAt: string;
  createdAt: string;
  accountId: string;
  from: string;
  lock?: 'for share';
  doneWhen?: string;
}): string {
  return `insert into outbox (topic, ordering_key, payload, available_at, created_at, account_id, done_at)
       select ${row.topic}, ${row.orderingKey}, ${row.payload}, due.at, ${row.createdAt}, ${row.accountId},
         ${row.doneWhen ? `case when ${row.doneWhen} then due.at end` : 'null::timestamptz'}
       from ${row.from},
         lateral (select (${row.availableAt})::timestamptz - ${accountOffset(row.accountId, row.lock ?? '')} as at) due`;
}

/**
 * `outboxInsertSql`'s fields read from the columns a statement's input names them by (`outboxRowValues` unnested
 * as `topic, ordering_key, payload, available_at, created_at, job_account_id` of the row `alias`).
 */
export const outboxColumnsOf = (alias: string) => ({
  topic: `${alias}.topic`,
  orderingKey: `${alias}.ordering_key`,
  payload: `${alias}.payload`,
  availableAt: `${alias}.available_at`,
  createdAt: `${alias}.created_at`,
  accountId: `${alias}.job_account_id`,
});

/** A job of any topic for a statement that writes an account's jobs beside other rows (`jobRowsInsertSql`). */
export interface JobRow {
  values: ReturnType<typeof outboxRowValues>;
  /** What `jobsEnqueued` does for its topic; called after the statement. */
  wake: (sql: Sql) => void;
}

export const jobRow = <P>(job: NewJob<P>): JobRow => ({
  values: outboxRowValues(job),
  wake: (sql) => jobsEnqueued(sql, job.topic),
});

/**
 * `outboxInsertSql` of job rows of one account passed as three array parameters from `$first` on
 * (`jobRowsParams`): topics, payloads and available_at (the account's clock), read `for share` as `enqueue` does.
 */
export const jobRowsInsertSql = (first: number, accountId: string, createdAt: string): string =>
  outboxInsertSql({
    topic: 'j.topic',
    orderingKey: 'null',
    payload: 'j.payload::jsonb',
    availableAt: 'j.available_at',
    createdAt,
    accountId,
    lock: 'for share',
    from: `unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::timestamptz[]) as j(topic, payload, available_at)`,
  });

export const jobRowsParams = (rows: JobRow[]) => [
  rows.map((r) => r.values[0]),
  rows.map((r) => r.values[2]),
  rows.map((r) => r.values[3]),
];

/**
 * Moves an account's pending jobs `deltaMs` earlier on the service's time: what moving the account's clock
 * forward by `deltaMs` does to them (src/sandbox/clock.ts), in the mover's transaction.
 */
export async function shiftAccountJobs(sql: Sql, accountId: number, deltaMs: number): Promise<void> {
  await sql.query(
    `update outbox set available_at = available_at - $2 * interval '1 millisecond'
      where done_at is null and account_id = $1`,
    [accountId, deltaMs],
  );
}

/** An account's jobs (`$1`: its id), as the sandbox reset removes them (src/sandbox/reset-store.ts). */
export const ACCOUNT_JOBS = { table: 'outbox', where: 'account_id = $1' } as const;

/** Wakes the workers of `topic` once what was written through `sql` commits. */
export function jobsEnqueued<P>(sql: Sql, topic: Topic<P>): void {
  sql.notifyAfterCommit(`${OUTBOX_CHANNEL}:${topic.name}`);
}

/**
 * Marks jobs done (their rows locked in id order, so two such statements never wait on each other in a
 * circle). For the workers, and for a handler that must record its outcome and the job's end in one commit.
 */
export async function markJobsDone(sql: Sql, ids: number[], now: Date): Promise<void> {
  if (!ids.length) return;
  await sql.query(
    `update outbox set done_at = $2, locked_until = null, last_error = null
      where id in (select id from outbox where id = any($1) order by id for update)`,
    [ids, now],
  );
}
