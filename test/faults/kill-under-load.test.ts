/**
 * kill -9 under a mixed load of charge creation, payments, refunds and webhook deliveries, then a restart
 * on the same data: everything acknowledged before the kill is there (charges, payments, refunds), every
 * payment's webhook is delivered at least once, and the ledger still verifies (`pixd ledger verify`).
 */
// suite: serial (kill -9 of a child node under load): run alone, after the concurrent files; see scripts/test.sh.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/service.ts';
import { seededData } from '../../src/testing/template.ts';
import { Receiver, trustTestCa, webhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { runPixd } from '../helpers/cli.ts';
import { demoClient, killNode, startChildNode, type ChildNode } from '../helpers/child-node.ts';

/** Concurrent clients of the mixed load, and the payments acknowledged before the kill lands mid-load. */
const WORKERS = 6;
const PAYMENTS_BEFORE_KILL = 40;

describe('faults: kill -9 under mixed load', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-kill-'));
  const cleanups: (() => Promise<unknown> | void)[] = [() => fs.rmSync(dataDir, { recursive: true, force: true })];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('loses nothing acknowledged, delivers every payment webhook, and the ledger verifies', async () => {
    const port = String(await freePort());
    // The data directory (and database) of a first start, copied from the test template.
    const seeded = await seededData(`https://127.0.0.1:${port}`, { adminUrl: process.env.DATABASE_URL, dataDir });
    cleanups.push(() => seeded.discard());
    const env = {
      PIXD_DATA_DIR: dataDir,
      PORT: port,
      ...(seeded.databaseUrl && { DATABASE_URL: seeded.databaseUrl }),
      PIXD_TEST_WEBHOOK_SETTINGS: JSON.stringify({ extraCaPem: trustTestCa().certPem }),
    };
    let node: ChildNode = await startChildNode(env);
    cleanups.push(() => killNode(node));
    const client = demoClient(node.credentialsPath, node.baseUrl);
    cleanups.push(() => client.http.close());
    const receiver = await Receiver.start({ clientCaPem: client.caPem });
    cleanups.push(() => receiver.close());
    await webhookApi(client).registerPix(`${receiver.url}/kill`);

    const token = await client.token();
    const call = (method: string, p: string, body?: unknown) => client.http.request(method, p, { token, body });
    const charges: string[] = [];
    const payments: { txid: string; endToEndId: string }[] = [];
    const refunds: { endToEndId: string; id: string }[] = [];
    let killed = false;
    const worker = async (w: number) => {
      for (let n = 0; !killed; n++) {
        try {
          const cob = await call('POST', '/v2/cob', {
            calendario: { expiracao: 3600 },
            valor: { original: '25.00' },
            chave: client.chaves[0],
          });
          if (cob.status !== 201) continue;
          charges.push(cob.body.txid);
          const paid = await call('POST', '/sandbox/pix/pay', { txid: cob.body.txid });
          if (paid.status !== 201) continue;
          payments.push({ txid: cob.body.txid, endToEndId: paid.body.endToEndId });
          if (n % 2) continue;
          const id = `kill${w}x${n}`;
          const refund = await call('PUT', `/v2/pix/${paid.body.endToEndId}/devolucao/${id}`, { valor: '1.00' });
          if (refund.status === 201) refunds.push({ endToEndId: paid.body.endToEndId, id });
        } catch {
          return; // the node is gone: whatever got no answer was not acknowledged
        }
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    await waitFor(async () => payments.length >= PAYMENTS_BEFORE_KILL && refunds.length >= 3, 'load under way', 60_000);
    killed = true;
    await killNode(node);
    await load;

    node = await startChildNode(env);
    const after = demoClient(node.credentialsPath, node.baseUrl);
    cleanups.push(() => after.http.close());
    const again = async (method: string, p: string) => after.http.request(method, p, { token: await after.token() });
    for (const txid of charges) assert.equal((await again('GET', `/v2/cob/${txid}`)).status, 200, `charge ${txid}`);
    for (const { txid, endToEndId } of payments) {
      const cob = await again('GET', `/v2/cob/${txid}`);
      assert.equal(cob.body.status, 'CONCLUIDA', `paid charge ${txid}`);
      assert.equal((await again('GET', `/v2/pix/${endToEndId}`)).status, 200, `Pix ${endToEndId}`);
    }
    for (const { endToEndId, id } of refunds)
      assert.equal((await again('GET', `/v2/pix/${endToEndId}/devolucao/${id}`)).status, 200, `refund ${id}`);
    // Every acknowledged payment's webhook arrives, at least once, from the restarted node.
    await waitFor(
      async () => {
        const delivered = new Set(
          receiver.callsTo('/kill/pix').flatMap((c) => (c.body as any).pix.map((p: any) => p.endToEndId)),
        );
        return payments.every((p) => delivered.has(p.endToEndId));
      },
      'every payment webhook delivered',
      30_000,
    );
    const verify = await runPixd(['ledger', 'verify', '--data-dir', dataDir], env);
    assert.equal(verify.status, 0, verify.stdout);
    assert.ok(payments.length > 0 && refunds.length > 0, `${payments.length} payments, ${refunds.length} refunds`);
  });
});
