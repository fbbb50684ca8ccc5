/**
 * Webhook attempt retention: attempt records (each with up to ~4 KiB of bodies, attempts.ts) older than the
 * configured days (config.webhookAttemptRetentionDays, LIMITS.webhookAttemptRetentionDaysDefault) are deleted,
 * except those of a delivery still pending or retrying: the console and the inspection API show a delivery
 * whole while it is under way.
 *
 * A service job on the outbox, one at a time on whichever node claims it: each run looks at the next
 * `LIMITS.webhookAttemptRetentionBatch` records in id order and deletes the old ones. While a run finds old
 * records the pass goes on at once from where it stopped; at the end of the table, or at a batch with none,
 * the next pass starts from the first record `webhookAttemptRetentionIntervalMinutes` later. Every node makes
 * sure at start that a job is waiting; two nodes starting together may write two, and the first to run sees
 * the other and ends its own chain, so one remains. Times are the service clock's (the sandbox moves it).
 */
import type { Database, Sql } from '../db/database.ts';
import type { Clock } from '../clock.ts';
import { LIMITS } from '../limits.ts';
import { defineTopic, enqueue, type OutboxJob } from '../outbox/jobs.ts';
import { deleteOldAttempts, otherJobPending } from './retention-store.ts';

interface RetentionJob {
  /** Where this run of the pass starts: records after this id. */
  afterId: number;
}

interface RetentionDeps {
  db: Database;
  clock: Clock;
  config: { webhookAttemptRetentionDays: number };
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** One chain of these jobs at a time: only the oldest unfinished job of a key is ever claimed. */
const ORDERING_KEY = 'webhook-attempt-retention';

export const ATTEMPT_RETENTION_TOPIC = defineTopic<RetentionJob, RetentionDeps>({
  name: 'webhook.attempts.retention',
  handler:
    ({ db, clock, config }) =>
    async (job: OutboxJob<RetentionJob>) => {
      const now = clock.now();
      const before = new Date(now.getTime() - config.webhookAttemptRetentionDays * DAY_MS);
      const pass = await deleteOldAttempts(db, job.payload.afterId, LIMITS.webhookAttemptRetentionBatch, before);
      const goOn = pass.examined === LIMITS.webhookAttemptRetentionBatch && pass.old > 0;
      await db.tx((sql) =>
        scheduleRetention(sql, now, {
          afterId: goOn ? pass.lastId : 0,
          availableAt: goOn ? now : new Date(now.getTime() + LIMITS.webhookAttemptRetentionIntervalMinutes * MINUTE_MS),
          currentJobId: job.id,
        }),
      );
      return { done: true };
    },
});

/** Writes the next run unless another is waiting already (a second chain: this one ends). */
async function scheduleRetention(
  sql: Sql,
  now: Date,
  next: { afterId: number; availableAt: Date; currentJobId: number | null },
): Promise<void> {
  if (await otherJobPending(sql, ATTEMPT_RETENTION_TOPIC.name, next.currentJobId)) return;
  await enqueue(sql, {
    topic: ATTEMPT_RETENTION_TOPIC,
    payload: { afterId: next.afterId },
    orderingKey: ORDERING_KEY,
    accountId: null,
    availableAt: next.availableAt,
    now,
  });
}

/** At a node's start: a retention job is waiting (the first pass runs at once). */
export async function ensureAttemptRetention(db: Database, now: Date): Promise<void> {
  await db.tx((sql) => scheduleRetention(sql, now, { afterId: 0, availableAt: now, currentJobId: null }));
}
