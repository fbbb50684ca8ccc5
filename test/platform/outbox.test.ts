/**
 * The outbox worker on the real database: an idle worker polls less and less often, up to its limit, yet
 * still finds jobs nobody woke it for; a wake brings it back to its normal pace at once. A handler that throws
 * is retried after a pause that grows, its stack logged once. A fair claim (the webhook lanes') takes one
 * account's newest job before another account's backlog.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { jobErrorLogger, OutboxWorker, unexpectedRetryDelayMs } from '../../src/platform/outbox/outbox.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { defineTopic, enqueue } from '../../src/platform/outbox/jobs.ts';
import { waitFor } from '../helpers/wait.ts';

describe('outbox worker polling', () => {
  let svc: TestService;
  let worker: OutboxWorker;
  const handled: number[] = [];
  let throws = 0;
  let thrownAtMs = 0;
  const logged: [string, string][] = [];
  const throwing = defineTopic<Record<string, never>, undefined>({
    name: 'test.outbox-throwing',
    handler: () => async () => {
      thrownAtMs = svc.clock.nowMs();
      throws++;
      throw new TypeError('Protocol "http:" not supported. Expected "https:"');
    },
  });
  const topic = defineTopic<Record<string, never>, undefined>({
    name: 'test.outbox-polling',
    handler: () => async (job) => {
      handled.push(job.id);
      return { done: true };
    },
  });
  const pollIntervalMs = 20;
  const idlePollMaxMs = 160;

  before(async () => {
    svc = await startTestService();
    worker = new OutboxWorker(svc.service.ctx.db, svc.clock, { pollIntervalMs, idlePollMaxMs });
    worker.register(topic, undefined);
    worker.register(throwing, undefined);
    worker.setErrorLogger(
      jobErrorLogger(
        {
          error: (o, m) => logged.push(['error', `${m} ${'err' in o ? 'stack' : ''}`]),
          warn: (o, m) => logged.push(['warn', `${m} ${'err' in o ? 'stack' : ''}`]),
        },
        'job failed',
      ),
    );
    worker.start();
  });
  after(async () => {
    await worker.stop();
    await svc.close();
  });

  it('backs off while idle, never past its limit, and still finds a job it was not woken for', async () => {
    const delays = new Set<number>();
    await waitFor(
      async () => {
        delays.add(worker.nextPollDelayMs);
        return worker.nextPollDelayMs === idlePollMaxMs;
      },
      'idle backoff to reach its limit',
      5_000,
      5,
    );
    assert.ok(
      [...delays].every((d) => d >= pollIntervalMs && d <= idlePollMaxMs),
      `delays ${[...delays]}`,
    );
    assert.ok(delays.size > 2, 'the delay grew in steps');

    const now = svc.clock.now();
    const id = await enqueue(svc.service.ctx.db, { topic, payload: {}, accountId: null, availableAt: now, now });
    await waitFor(async () => handled.includes(id), 'the job to be claimed by polling');
  });

  it('a wake returns the worker to its normal pace', async () => {
    await waitFor(async () => worker.nextPollDelayMs === idlePollMaxMs, 'idle backoff', 5_000, 5);
    worker.wake();
    assert.equal(worker.nextPollDelayMs, pollIntervalMs);
  });

  it('a handler that throws is retried after a growing pause, its stack logged at error level only the first time', async () => {
    assert.deepEqual([1, 2, 3, 30].map(unexpectedRetryDelayMs), [
      LIMITS.outboxUnexpectedRetryFirstMs,
      LIMITS.outboxUnexpectedRetryFirstMs * 2,
      LIMITS.outboxUnexpectedRetryFirstMs * 4,
      LIMITS.outboxUnexpectedRetryMaxMs,
    ]);
    const now = svc.clock.now();
    const id = await enqueue(svc.service.ctx.db, {
      topic: throwing,
      payload: {},
      accountId: null,
      availableAt: now,
      now,
    });
    const availableAt = async () =>
      (
        await svc.service.ctx.db.query<{ available_at: Date; last_error: string }>(
          'select available_at, last_error from outbox where id = $1',
          [id],
        )
      ).rows[0];
    for (const attempt of [1, 2, 3]) {
      await waitFor(async () => throws === attempt && (await availableAt()).last_error !== null, `attempt ${attempt}`);
      await waitFor(async () => logged.length === attempt, `logged ${attempt}`);
      const row = await availableAt();
      const pauseMs = row.available_at.getTime() - thrownAtMs;
      // The pause counts from when the handler's failure was handled, a moment after it threw.
      assert.ok(
        pauseMs >= unexpectedRetryDelayMs(attempt) && pauseMs < unexpectedRetryDelayMs(attempt) + 1_000,
        `pause after attempt ${attempt}: ${pauseMs} ms`,
      );
      assert.match(row.last_error, /Protocol "http:" not supported/);
      svc.advance(unexpectedRetryDelayMs(attempt) / 1000);
      worker.wake();
    }
    await waitFor(async () => logged.length === 4, 'fourth failure logged');
    assert.deepEqual(
      logged.map(([level]) => level),
      ['error', 'warn', 'warn', 'warn'],
    );
    assert.equal(logged[0][1], 'job failed stack');
    assert.equal(logged[1][1], 'job failed again ');
  });

  it("a fair claim takes every account's oldest job before any account's second", async () => {
    const fairHandled: { id: number; accountId: number | null }[] = [];
    const fairTopic = defineTopic<Record<string, never>, undefined>({
      name: 'test.outbox-fair',
      handler: () => async (job) => {
        fairHandled.push({ id: job.id, accountId: job.accountId });
        return { done: true };
      },
    });
    const fair = new OutboxWorker(svc.service.ctx.db, svc.clock, { batchSize: 2, fairByAccount: true });
    fair.register(fairTopic, undefined);
    const busy = svc.demo.accountId;
    const quiet = (await svc.newParty()).accountId;
    const job = (accountId: number) => {
      const now = svc.clock.now();
      return enqueue(svc.service.ctx.db, { topic: fairTopic, payload: {}, accountId, availableAt: now, now });
    };
    for (let n = 0; n < 10; n++) await job(busy);
    const quietJob = await job(quiet);
    assert.equal(await fair.runOnce(), 2);
    assert.deepEqual(fairHandled.map((h) => h.accountId).sort(), [busy, quiet].sort());
    assert.ok(
      fairHandled.some((h) => h.id === quietJob),
      "the quiet account's job, behind ten older ones",
    );
  });
});
