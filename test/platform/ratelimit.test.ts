// suite: serial (the shared Redis server): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { RedisRateLimiter } from '../../src/platform/ratelimit-redis.ts';
import { burst } from '../helpers/burst.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 500;

describe('rate limit: 500 requests per second per application on listed PUT/POST routes', () => {
  let svc: TestService;
  let wallMs = Date.UTC(2026, 0, 1);
  before(async () => {
    svc = await startTestService({}, { wallClockMs: () => wallMs });
  });
  after(() => svc.close());

  it('answers 429 with Retry-After past 500 in one second, and recovers in the next', async () => {
    const party = await svc.newParty();
    const token = await party.token();
    // An invalid body still counts: the limit is checked before validation, as a gateway would.
    const send = () => party.http.request('POST', '/v2/cob', { token, body: {} });
    const { statuses, retryAfter } = await burst(LIMIT + 10, send);
    assert.equal(statuses.filter((s) => s === 400).length, LIMIT);
    assert.equal(statuses.filter((s) => s === 429).length, 10);
    assert.ok(retryAfter.every((v) => v === '1'));
    const other = await svc.newParty();
    assert.equal(
      (await other.http.request('POST', '/v2/cob', { token: await other.token(), body: {} })).status,
      400,
      'another application has its own budget',
    );
    assert.equal(
      (await party.http.request('GET', '/v2/cob/abcdefghijklmnopqrstuvwxyz123', { token })).status,
      404,
      'GET is not limited',
    );
    wallMs += 1000;
    assert.equal((await send()).status, 400, 'the next second has a fresh budget');
  });
});

describe('rate limit shared through Redis', () => {
  it('two nodes together allow 500 per second', async () => {
    const wallMs = () => Date.UTC(2026, 0, 1, 12);
    const nodes = [new RedisRateLimiter(REDIS_URL, { wallMs }), new RedisRateLimiter(REDIS_URL, { wallMs })];
    try {
      await Promise.all(nodes.map((n) => n.connected()));
      const key = `test-${process.pid}-${Date.now()}`;
      const decisions = await Promise.all(Array.from({ length: 600 }, (_, i) => nodes[i % 2].hit(key, LIMIT)));
      assert.equal(decisions.filter((d) => d.allowed).length, LIMIT);
    } finally {
      await Promise.all(nodes.map((n) => n.close()));
    }
  });

  it('a server with REDIS_URL enforces the limit through Redis', async () => {
    let wallMs = Date.UTC(2026, 0, 2) + Math.floor(Math.random() * 1e6) * 1000;
    const svc = await startTestService({ REDIS_URL }, { wallClockMs: () => wallMs });
    try {
      const token = await svc.demo.token();
      const { statuses } = await burst(LIMIT + 5, () => svc.demo.http.request('POST', '/v2/cob', { token, body: {} }));
      assert.equal(statuses.filter((s) => s === 429).length, 5);
      wallMs += 1000;
    } finally {
      await svc.close();
    }
  });
});
