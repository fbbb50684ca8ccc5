/**
 * A node killed (SIGKILL) while a delivery is in flight loses nothing, and waits for nothing: the node
 * restarted on the same host frees the dead process's claims at once and delivers the same event again
 * (at least once, same delivery id) within seconds, with the production lease and heartbeat.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort, freshPostgres } from '../helpers/service.ts';
import { HttpsClient } from '../helpers/https-client.ts';
import { Receiver, trustTestCa, webhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import type { CredentialsFile } from '../../src/accounts/credentials.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pixd-node.child.ts');
/** The goal: after kill -9 and a restart, pending deliveries resume within this long. */
const RESUME_WITHIN_MS = 10_000;

async function startNode(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; baseUrl: string; credentialsPath: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, ...JSON.parse(line) };
}

describe('a node killed mid-delivery', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-crash-'));
  const cleanups: (() => Promise<unknown> | void)[] = [() => fs.rmSync(dataDir, { recursive: true, force: true })];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('is replaced by a restarted node that delivers the event again', async () => {
    const postgres = process.env.DATABASE_URL ? await freshPostgres(process.env.DATABASE_URL) : undefined;
    if (postgres) cleanups.push(() => postgres.drop());
    const testCa = trustTestCa();
    const env = {
      PIXD_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      ...(postgres && { DATABASE_URL: postgres.url }),
      PIXD_TEST_WEBHOOK_SETTINGS: JSON.stringify({
        extraCaPem: testCa.certPem,
        deliveryTimeoutMs: 60_000,
      }),
    };
    const first = await startNode(env);
    cleanups.push(() => void first.child.kill('SIGKILL'));
    const credentials = JSON.parse(fs.readFileSync(first.credentialsPath, 'utf8')) as CredentialsFile;
    const caPem = fs.readFileSync(credentials.caCertificate, 'utf8');
    const identity = {
      certPem: fs.readFileSync(credentials.certificate.pem, 'utf8'),
      keyPem: fs.readFileSync(credentials.certificate.key, 'utf8'),
    };
    const receiver = await Receiver.start({ clientCaPem: caPem });
    cleanups.push(() => receiver.close());
    const party = (baseUrl: string) => {
      const http = new HttpsClient(baseUrl, caPem, identity);
      cleanups.push(() => http.close());
      let token: string | undefined;
      return webhookApi({
        chaves: credentials.chaves,
        http,
        async token() {
          token ??= (
            await http.request('POST', '/oauth/token', {
              body: { grant_type: 'client_credentials' },
              headers: {
                authorization:
                  'Basic ' + Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64'),
              },
            })
          ).body.access_token;
          return token!;
        },
      });
    };

    const api = party(first.baseUrl);
    await api.registerPix(`${receiver.url}/crash`);
    receiver.behaviour = 'hang';
    const pix = await api.payNewCharge();
    const [inFlight] = await receiver.waitForCalls(1, '/crash/pix');
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    receiver.behaviour = { status: 200 };

    const restartedAtMs = Date.now();
    const second = await startNode(env);
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
