/**
 * A node killed (SIGKILL) while a delivery is in flight loses nothing, and waits for nothing: the node
 * restarted on the same host frees the dead process's claims at once and delivers the same event again
 * (at least once, same delivery id) within seconds, with the production lease and heartbeat.
 */
// suite: serial (kill -9 of a child node, resumes within 10 s): run alone, after the concurrent files; see scripts/test.sh.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/service.ts';
import { seededData } from '../../src/testing/template.ts';
import { Receiver, trustTestCa, webhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { demoClient, killNode, startChildNode } from '../helpers/child-node.ts';

/** The goal: after kill -9 and a restart, pending deliveries resume within this long. */
const RESUME_WITHIN_MS = 10_000;

describe('a node killed mid-delivery', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-crash-'));
  const cleanups: (() => Promise<unknown> | void)[] = [() => fs.rmSync(dataDir, { recursive: true, force: true })];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('is replaced by a restarted node that delivers the event again', async () => {
    const port = String(await freePort());
    // The data directory (and database) of a first start, copied from the test template.
    const seeded = await seededData(`https://127.0.0.1:${port}`, { adminUrl: process.env.DATABASE_URL, dataDir });
    cleanups.push(() => seeded.discard());
    const testCa = trustTestCa();
    const env = {
      PIXD_DATA_DIR: dataDir,
      PORT: port,
      ...(seeded.databaseUrl && { DATABASE_URL: seeded.databaseUrl }),
      PIXD_TEST_WEBHOOK_SETTINGS: JSON.stringify({
        extraCaPem: testCa.certPem,
        deliveryTimeoutMs: 60_000,
      }),
    };
    const first = await startChildNode(env);
    cleanups.push(() => killNode(first));
    const receiver = await Receiver.start({ clientCaPem: demoClient(first.credentialsPath, first.baseUrl).caPem });
    cleanups.push(() => receiver.close());
    const party = (baseUrl: string) => {
      const client = demoClient(first.credentialsPath, baseUrl);
      cleanups.push(() => client.http.close());
      return webhookApi(client);
    };

    const api = party(first.baseUrl);
    await api.registerPix(`${receiver.url}/crash`);
    receiver.behaviour = 'hang';
    const pix = await api.payNewCharge();
    const [inFlight] = await receiver.waitForCalls(1, '/crash/pix');
    await killNode(first);
    receiver.behaviour = { status: 200 };

    const restartedAtMs = Date.now();
    const second = await startChildNode(env);
    cleanups.push(() => void second.child.kill('SIGTERM'));
    const calls = await receiver.waitForCalls(2, '/crash/pix', 30_000);
    assert.equal(calls[1].body.pix[0].endToEndId, pix.endToEndId);
    assert.equal(
      calls[1].headers['x-pixd-delivery-id'],
      inFlight.headers['x-pixd-delivery-id'],
      'the same delivery, again',
    );
    const resumedAfterMs = calls[1].atMs - restartedAtMs;
    assert.ok(resumedAfterMs < RESUME_WITHIN_MS, `resumed ${resumedAfterMs} ms after the restart`);
    const delivery = await waitFor(async () => {
      const d = (await party(second.baseUrl).deliveries('webhook.pix')).find((x) => x.assunto === pix.endToEndId);
      return d?.situacao === 'entregue' && d;
    }, 'recorded as delivered');
    assert.equal(delivery.tentativas.at(-1).statusHttp, 200);
  });
});
