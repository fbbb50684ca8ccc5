/**
 * The outbox worker on the real database: an idle worker polls less and less often, up to its limit, yet
 * still finds jobs nobody woke it for; a wake brings it back to its normal pace at once. A fair claim
 * (the webhook lanes') takes one account's newest job before another account's backlog.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { OutboxWorker } from '../../src/platform/outbox/outbox.ts';
import { defineTopic, enqueue } from '../../src/platform/outbox/jobs.ts';
import { waitFor } from '../helpers/wait.ts';

describe('outbox worker polling', () => {
  let svc: TestService;
  let worker: OutboxWorker;
  const handled: number[] = [];
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
