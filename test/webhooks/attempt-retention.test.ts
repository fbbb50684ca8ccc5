/**
 * Webhook attempt retention (src/platform/webhooks/retention.ts): on the injected clock, attempt records past
 * the configured days go, those of a delivery still retrying stay; one chain of the job remains when two
 * nodes each wrote one; a run looks at no more than its batch.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { ATTEMPT_RETENTION_TOPIC, ensureAttemptRetention } from '../../src/platform/webhooks/retention.ts';
import { deleteOldAttempts } from '../../src/platform/webhooks/retention-store.ts';
import { enqueue } from '../../src/platform/outbox/jobs.ts';

/** The setting overrides LIMITS.webhookAttemptRetentionDaysDefault. */
const RETENTION_DAYS = 10;
const DAY_S = 86_400;

describe('webhook attempt retention', () => {
  let svc: TestService;
  let receiver: Receiver;

  before(async () => {
    svc = await startTestService({ PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS: String(RETENTION_DAYS) });
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  interface AttemptRow {
    id: number;
    status_code: number | null;
    finished: boolean;
  }
  const attempts = async () =>
    (
      await svc.service.ctx.db.query<AttemptRow>(
        `select a.id::int as id, a.status_code, o.done_at is not null as finished
           from webhook_attempts a join outbox o on o.id = a.outbox_id order by a.id`,
      )
    ).rows;
  const retentionJobs = async () =>
    (
      await svc.service.ctx.db.query<{ id: number; available_at: Date; payload: { afterId: number } }>(
        'select id::int as id, available_at, payload from outbox where topic = $1 and done_at is null',
        [ATTEMPT_RETENTION_TOPIC.name],
      )
    ).rows;

  it('deletes attempts past the retention, keeps a retrying delivery whole, and keeps one job chain', async () => {
    const api = webhookApi(svc.demo);
    await api.registerPix(receiver.url);
    // One delivered (200, finished), one retrying (500, its next attempt a minute later).
    await api.payNewCharge('1.00');
    const [delivered] = await waitFor(async () => {
      const rows = await attempts();
      return rows.length === 1 && rows[0].finished && rows;
    }, 'the delivered attempt');
    assert.equal(delivered.status_code, 200);
    receiver.behaviour = { status: 500 };
    await api.payNewCharge('2.00');
    const retrying = await waitFor(async () => (await attempts()).find((a) => a.status_code === 500), 'a failure');
    assert.equal(retrying.finished, false);
    // Its retry must not come while the clock is moved: the delivery stays under way, as one whose next
    // attempt is hours off would.
    await svc.service.ctx.webhooks.stop();

    // Started with the node: one job waits (its first pass, at start, done); a node starting again writes no second one.
    await outboxIdle(svc);
    assert.equal((await retentionJobs()).length, 1);
    await ensureAttemptRetention(svc.service.ctx.db, svc.clock.now());
    assert.equal((await retentionJobs()).length, 1);
    // Two nodes starting at once may each write one: a second chain, ended by whichever runs first.
    await svc.service.ctx.db.tx((sql) =>
      enqueue(sql, {
        topic: ATTEMPT_RETENTION_TOPIC,
        payload: { afterId: 0 },
        orderingKey: 'webhook-attempt-retention',
        accountId: null,
        availableAt: svc.clock.now(),
        now: svc.clock.now(),
      }),
    );
    assert.equal((await retentionJobs()).length, 2);

    // Within the retention (a day short of it), nothing goes.
    svc.advance((RETENTION_DAYS - 1) * DAY_S);
    await waitFor(async () => {
      const jobs = await retentionJobs();
      return jobs.length === 1 && jobs[0].available_at > svc.clock.now() && jobs;
    }, 'one retention job, waiting for its next pass');
    assert.deepEqual(
      (await attempts()).map((a) => a.id),
      [delivered.id, retrying.id],
    );

    // Past it: the finished delivery's attempt goes, the retrying one's stays; the next pass is an interval away.
    svc.advance(2 * DAY_S);
    await waitFor(async () => (await attempts()).length === 1, 'the old finished attempt deleted');
    assert.deepEqual(
      (await attempts()).map((a) => a.id),
      [retrying.id],
    );
    const [next] = await waitFor(async () => {
      const jobs = await retentionJobs();
      return jobs.length === 1 && jobs[0].available_at > svc.clock.now() && jobs;
    }, 'the next pass scheduled');
    assert.equal(next.payload.afterId, 0, 'the next pass starts from the first record');
    assert.equal(
      next.available_at.getTime() - svc.clock.now().getTime() <= LIMITS.webhookAttemptRetentionIntervalMinutes * 60_000,
      true,
    );
  });

  it('a run looks at no more than its batch, in id order', async () => {
    const db = svc.service.ctx.db;
    const [first] = await attempts();
    const far = new Date(svc.clock.now().getTime() + 365 * DAY_S * 1000);
    // A batch of 1 from the start: the one record is looked at, old, and kept (its delivery is retrying).
    assert.deepEqual(await deleteOldAttempts(db, 0, 1, far), { examined: 1, lastId: first.id, old: 1, deleted: 0 });
    // After the last record: nothing to look at, the pass is over.
    assert.deepEqual(await deleteOldAttempts(db, first.id, 1, far), {
      examined: 0,
      lastId: first.id,
      old: 0,
      deleted: 0,
    });
  });
});
