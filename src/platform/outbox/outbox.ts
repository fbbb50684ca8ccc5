/**
 * The outbox: durable jobs written in the same transaction as the state change that caused them, then
 * handled at least once by workers on any number of nodes.
 *
 * Claiming takes a batch with `for update skip locked` and leases it (wall time), so no two workers
 * hold the same job while an attempt is in flight. Leases are short and renewed by a heartbeat while
 * their jobs run, so a crashed worker's jobs go to another node within seconds, not minutes; a node
 * that restarts on the same host frees at once the claims of its dead predecessors. Jobs
 * sharing an `orderingKey` are handled strictly in id order: only the oldest unfinished one of a key
 * is ever claimable.

 */
import type { Database } from '../db/database.ts';
import type { Clock } from '../clock.ts';
import { LIMITS } from '../limits.ts';
import { FAIR_CLAIM_WINDOW, readyJobs } from './claim.ts';
import { THIS_HOST_HOLDERS, heldByDeadProcess, holderId } from '../processes.ts';
import {
  type AnyTopic,
  type JobHandler,
  type JobOutcome,
  type OutboxJob,
  accountOffset,
  markJobsDone,
} from './jobs.ts';

export interface WorkerOptions {
  batchSize?: number;
  pollIntervalMs?: number;
  /** Polls that find nothing back off, doubling up to this; any claim or wake returns to `pollIntervalMs`. */
  idlePollMaxMs?: number;
  leaseMs?: number;
  /**
   * Claim as slots free up (at most `batchSize` jobs in flight) instead of batch after batch: a job that
   * waits long (a receiver hanging until its timeout) then holds only its own slot, not its batch.
   */
  continuous?: boolean;
  /**
   * Share each claim across accounts: from the oldest ready jobs (a window of `FAIR_CLAIM_WINDOW` claims'
   * worth per topic) take every account's first, then every account's second, and so on, instead of the
   * oldest first: one account's backlog does not hold back another's newest job (webhook lanes).
   */
  fairByAccount?: boolean;
  wallMs?: () => number;
  onError?: JobErrorLogger;
}

/**
 * Told of every error the workers catch; `repeated` when the job's previous attempt also ended in an
 * unexpected failure (log its stack once, not at every retry of a job that cannot succeed).
 */
export type JobErrorLogger = (error: unknown, job?: OutboxJob, repeated?: boolean) => void;

/** How an unexpected failure is kept in `last_error`: the next failure of the same job knows it repeats. */
const UNEXPECTED_PREFIX = 'inesperado: ';

/** The pause before a job whose handler threw runs again: doubling from the first, capped. */
export function unexpectedRetryDelayMs(attempt: number): number {
  const { outboxUnexpectedRetryFirstMs: first, outboxUnexpectedRetryMaxMs: max } = LIMITS;
  return Math.min(first * 2 ** Math.min(attempt - 1, 30), max);
}

/**
 * The runtime's logger of a worker's errors (the main worker's and the webhook lanes'): the first unexpected
 * failure of a job with its stack at error level, the same job failing again at warn with its message only.
 */
export function jobErrorLogger(log: JobLog, message: string): JobErrorLogger {
  return (error, job, repeated) => {
    const context = job && { id: job.id, topic: job.topic, attempt: job.attempt };
    if (repeated) log.warn({ job: context, error: (error as Error)?.message ?? String(error) }, `${message} again`);
    else log.error({ err: error, job: context }, message);
  };
}

interface JobLog {
  error(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export const OUTBOX_DEFAULTS = {
  batchSize: 200,
  pollIntervalMs: 100,
  /**
   * An idle node polls about twice a second per worker instead of ten times: every poll is a round trip and a
   * statement on the database, paid by every node. Work this node commits wakes its workers at once, so the
   * backoff only delays jobs it learns of by polling (retries coming due, other nodes' jobs whose lease ran out).
   */
  idlePollFactor: 8,
  /** Renewed every third of itself while the job runs (a live attempt never loses it, however long). */
  leaseMs: LIMITS.outboxLeaseMs,
} as const;

export class OutboxWorker {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly nodeId = holderId();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wakeRequested = false;
  /** Delay before the next poll: `pollIntervalMs` while work is found, growing while none is. */
  private pollDelayMs: number;
  private readonly wakeListeners: ((topic?: string) => void)[] = [];
  private readonly options: Required<WorkerOptions>;
  /** Jobs claimed by this worker and not finished: their leases are renewed by the heartbeat. */
  private readonly leased = new Set<number>();
  /** Continuous mode: the jobs running, and finished ones waiting to be marked done in one statement. */
  private readonly inFlight = new Set<Promise<void>>();
  private finished: number[] = [];
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    options: WorkerOptions = {},
  ) {
    const pollIntervalMs = options.pollIntervalMs ?? OUTBOX_DEFAULTS.pollIntervalMs;
    this.options = {
      batchSize: OUTBOX_DEFAULTS.batchSize,
      leaseMs: OUTBOX_DEFAULTS.leaseMs,
      pollIntervalMs,
      idlePollMaxMs: pollIntervalMs * OUTBOX_DEFAULTS.idlePollFactor,
      wallMs: Date.now,
      continuous: false,
      fairByAccount: false,
      onError: () => undefined,
      ...options,
    };
    this.pollDelayMs = pollIntervalMs;
  }

  setErrorLogger(onError: JobErrorLogger): void {
    this.options.onError = onError;
  }

  /** Builds the topic's handler from `deps`; a worker claims only the topics registered on it. */
  register<D>(topic: AnyTopic<D>, deps: D): void {
    if (this.handlers.has(topic.name)) throw new Error(`outbox topic ${topic.name} already has a handler`);
    // Its jobs' payloads were written by `enqueue`, which checked them against this same topic.
    this.handlers.set(topic.name, topic.handler(deps) as JobHandler);
  }

  start(): void {
    this.stopped = false;
    this.heartbeat = setInterval(() => void this.renewLeases(), this.options.leaseMs / 3);
    this.heartbeat.unref();
    // The dead predecessors' claims first, so their jobs are claimable by the first poll.
    void this.releaseClaimsOfDeadProcesses()
      .catch((error) => this.options.onError(error))
      .finally(() => {
        if (!this.stopped) this.schedule(0);
      });
  }

  /**
   * Claims held by processes of this host that no longer exist (a node killed and restarted) are freed
   * now instead of when their lease runs out. Another host's claims are left to their leases: their pids
   * mean nothing here.
   */
  private async releaseClaimsOfDeadProcesses(): Promise<void> {
    const { rows } = await this.db.query<{ locked_by: string }>(
      `select distinct locked_by from outbox where done_at is null and locked_until > $1 and locked_by like $2`,
      [new Date(this.options.wallMs()), THIS_HOST_HOLDERS],
    );
    const dead = rows.map((r) => r.locked_by).filter(heldByDeadProcess);
    if (dead.length)
      await this.db.query('update outbox set locked_until = null where done_at is null and locked_by = any($1)', [
        dead,
      ]);
  }

  /** Lets the jobs in flight finish; claims nothing more. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all(this.inFlight);
    await this.markDone();
    clearInterval(this.heartbeat);
  }

  /** Jobs it could claim now: in continuous mode, the batch size less the jobs in flight. */
  get freeSlots(): number {
    return this.options.batchSize - this.inFlight.size;
  }

  /** How long the worker will wait before its next poll, unless woken. */
  get nextPollDelayMs(): number {
    return this.pollDelayMs;
  }

  /** Other loops over the outbox table (webhook dispatchers) that want the same nudge, with its topic if known. */
  onWake(listener: (topic?: string) => void): void {
    this.wakeListeners.push(listener);
  }

  /**
   * Asks for a claim now instead of at the next poll (called after a commit that enqueued work). With the topic
   * committed, a worker that has no handler for it only passes the nudge on: a payment's commit enqueues a
   * webhook event, and a claim here would find nothing (one wasted statement per payment).
   */
  wake(topic?: string): void {
    for (const listener of this.wakeListeners) listener(topic);
    if (topic !== undefined && !this.handlers.has(topic)) return;
    this.pollDelayMs = this.options.pollIntervalMs;
    if (this.stopped) return;
    if (this.running !== undefined) this.wakeRequested = true;
    else this.schedule(0);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const claiming = this.loop().catch((error) => {
        this.options.onError(error);
        return 0;
      });
      this.running = claiming.then((claimed) => {
        this.running = undefined;
        const { pollIntervalMs, idlePollMaxMs } = this.options;
        this.pollDelayMs = claimed ? pollIntervalMs : Math.min(this.pollDelayMs * 2, idlePollMaxMs);
        if (!this.stopped) this.schedule(this.wakeRequested ? 0 : this.pollDelayMs);
        this.wakeRequested = false;
      });
    }, delayMs);
    this.timer.unref();
  }

  /** Returns how many jobs were claimed in all. */
  private async loop(): Promise<number> {
    if (this.options.continuous) return this.claimIntoFreeSlots();
    // Keep claiming while full batches come back: a backlog drains without waiting for polls.
    let claimed = 0;
    while (!this.stopped) {
      const batch = await this.runOnce();
      claimed += batch;
      if (batch < this.options.batchSize) break;
    }
    return claimed;
  }

  /** Continuous mode: fills the free slots; each job, once finished, frees its slot and claims again. */
  private async claimIntoFreeSlots(): Promise<number> {
    const free = this.options.batchSize - this.inFlight.size;
    if (free <= 0) return 0;
    let jobs: OutboxJob[];
    try {
      jobs = await this.claim(free);
    } catch (error) {
      this.options.onError(error);
      return 0;
    }
    for (const job of jobs) {
      this.leased.add(job.id);
      // Its own list: `markDone` swaps `this.finished`, and an id pushed into a list already flushed would
      // never be marked done (its lease would run out and the job run again).
      const done: number[] = [];
      const running: Promise<void> = this.handle(job, done).finally(() => {
        this.finished.push(...done);
        this.leased.delete(job.id);
        this.inFlight.delete(running);
        // Marked done together with whatever else finished in this turn of the event loop.
        if (this.finished.length) setImmediate(() => void this.markDone());
        if (!this.stopped) this.wake();
      });
      this.inFlight.add(running);
    }
    return jobs.length;
  }

  /** Continuous mode: marks what finished since the last call. */
  private async markDone(): Promise<void> {
    const done = this.finished;
    if (!done.length) return;
    this.finished = [];
    await this.markDoneIds(done);
    for (const listener of this.wakeListeners) listener();
  }

  /** Finished jobs are marked in one statement: one round trip per batch, not per job. */
  private async markDoneIds(ids: number[]): Promise<void> {
    if (!ids.length) return;
    // On failure the leases run out and the jobs run again: at least once.
    await markJobsDone(this.db, ids, this.clock.now()).catch((error) => this.options.onError(error));
  }

  /** Claims one batch and handles it. Returns how many jobs were claimed. */
  async runOnce(): Promise<number> {
    let jobs: OutboxJob[];
    try {
      jobs = await this.claim(this.options.batchSize);
    } catch (error) {
      this.options.onError(error);
      return 0;
    }
    // Different ordering keys run concurrently; claim() never returns two jobs of one key.
    const done: number[] = [];
    for (const job of jobs) this.leased.add(job.id);
    await Promise.all(jobs.map((job) => this.handle(job, done).finally(() => this.leased.delete(job.id))));
    await this.markDoneIds(done);
    // Jobs that finished have usually committed follow-up work (webhook events): the lanes should look now.
    if (jobs.length) for (const listener of this.wakeListeners) listener();
    return jobs.length;
  }

  /** Extends the leases of jobs still running here; a failure only shortens them back to their expiry. */
  private async renewLeases(): Promise<void> {
    const ids = [...this.leased];
    if (!ids.length) return;
    await this.db
      .query('update outbox set locked_until = $1 where id = any($2) and locked_by = $3 and done_at is null', [
        new Date(this.options.wallMs() + this.options.leaseMs),
        ids,
        this.nodeId,
      ])
      .catch((error) => this.options.onError(error));
  }

  private async claim(limit: number): Promise<OutboxJob[]> {
    const topics = [...this.handlers.keys()];
    if (!topics.length) return [];
    const wallNow = new Date(this.options.wallMs());
    // One statement, atomic by itself: the claim costs one round trip, not begin + claim + commit.
    const { rows } = await this.db.query<{
      id: number;
      topic: string;
      payload: Record<string, unknown>;
      attempts: number;
      created_at: Date;
      account_id: string | number | null;
      last_error: string | null;
    }>(
      `with ${readyJobs(this.options.fairByAccount)}
         update outbox set locked_until = $5, locked_by = $6, attempts = attempts + 1
         from ready where outbox.id = ready.id
         returning outbox.id, outbox.topic, outbox.payload, outbox.attempts, outbox.created_at, outbox.account_id,
           outbox.last_error`,
      [
        topics,
        this.clock.now(),
        wallNow,
        limit,
        new Date(wallNow.getTime() + this.options.leaseMs),
        this.nodeId,
        ...(this.options.fairByAccount ? [limit * FAIR_CLAIM_WINDOW] : []),
      ],
    );
    return rows
      .sort((a, b) => a.id - b.id)
      .map((r) => ({
        id: r.id,
        topic: r.topic,
        payload: r.payload,
        attempt: r.attempts,
        createdAt: r.created_at,
        accountId: r.account_id === null ? null : Number(r.account_id),
        failedUnexpectedly: r.last_error?.startsWith(UNEXPECTED_PREFIX) ?? false,
      }));
  }

  private async handle(job: OutboxJob, done: number[]): Promise<void> {
    let outcome: JobOutcome;
    try {
      outcome = await this.handlers.get(job.topic)!(job);
    } catch (error) {
      this.options.onError(error, job, job.failedUnexpectedly);
      // An unexpected failure is retried rather than lost, after a pause that grows with the job's attempts: a
      // job that cannot succeed must not run (and log) every few seconds for ever.
      outcome = {
        retryAt: new Date(this.clock.forAccount(job.accountId).nowMs() + unexpectedRetryDelayMs(job.attempt)),
        error: UNEXPECTED_PREFIX + ((error as Error)?.message ?? String(error)),
      };
    }
    try {
      if ('done' in outcome) {
        if (!outcome.marked) done.push(job.id);
      } else if ('giveUp' in outcome) {
        await this.db.query('update outbox set done_at = $2, locked_until = null, last_error = $3 where id = $1', [
          job.id,
          this.clock.now(),
          `gave up: ${outcome.giveUp}`,
        ]);
      } else {
        // `retryAt` is on the job's account's time, stored on the service's (see `enqueue`).
        await this.db.query(
          `update outbox set available_at = $2::timestamptz - ${accountOffset('outbox.account_id')},
             locked_until = null, last_error = $3 where id = $1`,
          [job.id, outcome.retryAt, outcome.error],
        );
      }
    } catch (error) {
      // The lease will run out and the job be claimed again: at least once, never lost.
      this.options.onError(error, job);
    }
  }
}
