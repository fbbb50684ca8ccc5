/**
 * Redis only shares the rate limits between nodes. When it goes away, writes keep being served (limited by
 * each node on its own), the log says so once, `/health` shows it degraded, and the node returns to Redis
 * by itself once it answers again. This file runs its own throwaway redis-server, so it can kill it.
 */
// suite: serial (stops a Redis server under load): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { cobBody, freePort, startTestService, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { loggerOptions } from '../../src/platform/logging.ts';
import { LIMITS } from '../../src/platform/limits.ts';

describe('faults: Redis stops under load', () => {
  let port: number;
  let redis: ChildProcess | undefined;
  let svc: TestService;
  let wallMs = Date.UTC(2026, 0, 3) + Math.floor(Math.random() * 1e6) * 1000;
  const logLines: Record<string, unknown>[] = [];

  const startRedis = async () => {
    redis = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    await waitFor(async () => {
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        probe.disconnect();
        return false;
      }
    }, 'redis-server to answer');
    probe.disconnect();
  };
  const stopRedis = async () => {
    const exited = new Promise((resolve) => redis!.once('exit', resolve));
    redis!.kill('SIGKILL');
    await exited;
    redis = undefined;
  };

  before(async () => {
    port = await freePort();
    await startRedis();
    const stream = { write: (line: string) => void logLines.push(JSON.parse(line)) };
    svc = await startTestService(
      { REDIS_URL: `redis://127.0.0.1:${port}` },
      { wallClockMs: () => wallMs, logger: { ...loggerOptions('warn'), stream } },
    );
  });
  after(async () => {
    await svc?.close();
    if (redis) await stopRedis();
  });

  it('keeps serving limited writes per node while Redis is down, shows it degraded, and returns to Redis', async () => {
    const token = await svc.demo.token();
    const create = () =>
      svc.demo.http.request('POST', '/v2/cob', { token, body: cobBody(svc.demo.chaves[0], '12.34') });
    assert.equal((await create()).status, 201);
    const healthy = await svc.anonymous.request('GET', '/health');
    assert.equal(healthy.body.checks.redis, 'ok', healthy.text);

    await stopRedis();
    wallMs += 1000;
    const during = await Promise.all(Array.from({ length: 20 }, create));
    assert.deepEqual(
      during.map((r) => r.status),
      Array(20).fill(201),
      'payments never fail because the limiter is down',
    );
    const degraded = await svc.anonymous.request('GET', '/health');
    assert.equal(degraded.status, 200, 'the node stays ready: it serves without Redis');
    assert.equal(degraded.body.status, 'degraded');
    assert.equal(degraded.body.checks.redis, 'degraded');
    // The node still limits, on its own, within one window.
    wallMs += 1000;
    const burst = await Promise.all(
      Array.from({ length: LIMITS.rateLimitRequestsPerSecond + 5 }, () =>
        svc.demo.http.request('POST', '/v2/cob', { token, body: {} }),
      ),
    );
    assert.equal(burst.filter((r) => r.status === 429).length, 5, 'limited per node while Redis is down');
    const warnings = logLines.filter((l) => String(l.msg).startsWith('redis out of reach'));
    assert.equal(warnings.length, 1, 'said once, not per request');

    await startRedis();
    await waitFor(
      async () => (await svc.anonymous.request('GET', '/health')).body.checks.redis === 'ok',
      'the node to reconnect to Redis',
    );
    wallMs += 1000;
    assert.equal((await create()).status, 201);
    const keys = new Redis({ port });
    try {
      assert.ok((await keys.keys('pixd:rl:*')).length > 0, 'limits are counted in Redis again');
    } finally {
      keys.disconnect();
    }
  });
});
