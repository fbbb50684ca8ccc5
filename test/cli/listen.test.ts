/**
 * `pixd listen --forward-to` as a child process against a running sandbox: webhooks that pixd delivers
 * reach a plain-HTTP receiver on loopback, its answers become the deliveries' outcomes, and the account's
 * registrations are put back when the command stops, when the server stops, and when the server is killed
 * (by the restarted node).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import fs from 'node:fs';
import os from 'node:os';
import { Receiver, trustTestCa, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { freePort, startTestService, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { demoClient, killNode, startChildNode } from '../helpers/child-node.ts';
import { seededData } from '../../src/testing/template.ts';

interface LocalCall {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A plain-HTTP receiver on loopback, the kind a developer runs beside their code. */
async function localReceiver() {
  const calls: LocalCall[] = [];
  let status = 200;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      calls.push({ path: request.url ?? '', headers: request.headers, body });
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ recebido: true }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    calls,
    answerWith: (code: number) => (status = code),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** `pixd listen` with `args` (the account), its printed lines, stderr, and once it says it forwards. */
async function startListen(forwardTo: string, args: string[]) {
  const child = spawn(process.execPath, [path.resolve('bin/pixd.js'), 'listen', '--forward-to', forwardTo, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  const output = { child, lines, stderr: '' };
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  await waitFor(
    async () =>
      lines.some((line) => line.startsWith('forwarding ')) ||
      (child.exitCode !== null && Promise.reject(new Error(output.stderr))),
    'pixd listen ready',
  );
  return output;
}

describe('pixd listen', () => {
  let svc: TestService;
  let receiver: Receiver;
  let api: WebhookApi;
  let local: Awaited<ReturnType<typeof localReceiver>>;
  let child: ChildProcess;
  let printed: string[] = [];
  const chave = () => svc.demo.chaves[0];

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    local = await localReceiver();
    api = webhookApi(svc.demo);
    // What the account had before: listen must put it back.
    await api.registerPix(`${receiver.url}/before`);
    const listening = await startListen(local.url, ['--data-dir', svc.data.dataDir]);
    child = listening.child;
    printed = listening.lines;
  });
  after(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await local.close();
    await receiver.close();
    await svc.close();
  });

  it('says what it forwards, and points the webhooks at its session', async () => {
    assert.match(
      printed[0],
      new RegExp(`^forwarding Pix of ${chave()}, recurrences, recurring charges of \\d+ to ${local.url}`),
    );
    const registered = await api.call('GET', `/v2/webhook/${encodeURIComponent(chave())}`);
    assert.match(registered.body.webhookUrl, /\/sandbox\/listen\/[0-9a-f-]{36}\/webhook$/);
    assert.equal((await api.call('GET', '/v2/webhookrec')).body.webhookUrl, registered.body.webhookUrl);
  });

  it('forwards a delivery over plain HTTP with its body and headers, and prints it', async () => {
    const pix = await api.payNewCharge('21.00');
    const call = await waitFor(
      async () => local.calls.find((c) => c.body.includes(pix.endToEndId)),
      'forwarded delivery',
    );
    assert.equal(call.path, '/webhook/pix');
    assert.equal(call.headers['content-type'], 'application/json');
    assert.ok(call.headers['x-pixd-delivery-id'], 'the delivery id header came along');
    assert.equal(JSON.parse(call.body).pix[0].valor, '21.00');
    const line = await waitFor(
      async () => printed.find((l) => l.includes('/webhook/pix') && l.includes(chave())),
      'printed line',
    );
    assert.match(
      line,
      /^\d{4}-\d\d-\d\dT\S+Z {2}pix {3}\S+ {2}POST http:\/\/127\.0\.0\.1:\d+\/webhook\/pix {2}200 {2}\d+ ms$/,
    );
    const delivery = await waitFor(async () => {
      const d = (await api.deliveries()).find((e) => e.assunto === pix.endToEndId);
      return d?.situacao === 'entregue' && d;
    }, 'delivery recorded as delivered');
    assert.equal(delivery.tentativas.at(-1).statusHttp, 200);
  });

  it("records the local receiver's refusal as the delivery's outcome, which is retried", async () => {
    local.answerWith(500);
    try {
      const pix = await api.payNewCharge('22.00');
      const delivery = await waitFor(async () => {
        const d = (await api.deliveries()).find((e) => e.assunto === pix.endToEndId);
        return d?.tentativas.length && d;
      }, 'failed attempt recorded');
      assert.notEqual(delivery.situacao, 'entregue');
      assert.equal(delivery.tentativas[0].statusHttp, 500);
      assert.ok(delivery.proximaTentativa, 'a retry is scheduled');
      await waitFor(async () => printed.find((l) => l.includes('  500  ')), 'printed refusal');
    } finally {
      local.answerWith(200);
    }
  });

  it('puts the registrations back when it stops', async () => {
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    await exited;
    await waitFor(async () => {
      const read = await api.call('GET', `/v2/webhook/${encodeURIComponent(chave())}`);
      return read.body.webhookUrl === `${receiver.url}/before`;
    }, 'the key webhook put back');
    await waitFor(
      async () => (await api.call('GET', '/v2/webhookrec')).status === 404,
      'the recurrence webhook removed',
    );
  });

  it('says why it stopped and exits non-zero when the server stops, the registrations put back', async () => {
    const listening = await startListen(local.url, ['--data-dir', svc.data.dataDir]);
    child = listening.child;
    const exited = once(child, 'exit');
    await svc.close({ keepData: true });
    const [code] = await exited;
    assert.notEqual(code, 0, 'a stream the user did not end is a failure');
    assert.match(listening.stderr, /pixd listen stopped: .*(encerrado|shutting down|stopping)/i);
    svc = await startTestService({}, { reuse: svc.data });
    api = webhookApi(svc.demo);
    const read = await api.call('GET', `/v2/webhook/${encodeURIComponent(chave())}`);
    assert.equal(read.body.webhookUrl, `${receiver.url}/before`, 'the key webhook put back');
    assert.equal((await api.call('GET', '/v2/webhookrec')).status, 404, 'the recurrence webhook removed');
  });
});

describe('pixd listen when the server is killed', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-listen-kill-'));
  const cleanups: (() => Promise<unknown> | void)[] = [() => fs.rmSync(dataDir, { recursive: true, force: true })];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('exits non-zero saying so, and the restarted node puts the registrations back', async () => {
    const port = String(await freePort());
    const seeded = await seededData(`https://127.0.0.1:${port}`, { adminUrl: process.env.DATABASE_URL, dataDir });
    cleanups.push(() => seeded.discard());
    const env = {
      PIXD_DATA_DIR: dataDir,
      PORT: port,
      ...(seeded.databaseUrl && { DATABASE_URL: seeded.databaseUrl }),
      PIXD_TEST_WEBHOOK_SETTINGS: JSON.stringify({ extraCaPem: trustTestCa().certPem }),
    };
    const first = await startChildNode(env);
    cleanups.push(() => killNode(first));
    const party = (baseUrl: string) => {
      const client = demoClient(first.credentialsPath, baseUrl);
      cleanups.push(() => client.http.close());
      return { client, api: webhookApi(client) };
    };
    const { client, api } = party(first.baseUrl);
    const receiver = await Receiver.start({ clientCaPem: client.caPem });
    cleanups.push(() => receiver.close());
    await api.registerPix(`${receiver.url}/before`);
    const listening = await startListen('http://127.0.0.1:9/unused', ['--credentials', first.credentialsPath]);
    cleanups.push(() => void listening.child.kill('SIGKILL'));
    const keyWebhook = `/v2/webhook/${encodeURIComponent(client.chaves[0])}`;
    assert.match((await api.call('GET', keyWebhook)).body.webhookUrl, /\/sandbox\/listen\//);

    const exited = once(listening.child, 'exit');
    await killNode(first);
    const [code] = await exited;
    assert.notEqual(code, 0, 'the server going away is a failure');
    assert.match(listening.stderr, /pixd listen stopped: the connection to pixd was lost/);

    const second = await startChildNode(env);
    cleanups.push(() => killNode(second));
    const { api: again } = party(second.baseUrl);
    assert.equal((await again.call('GET', keyWebhook)).body.webhookUrl, `${receiver.url}/before`, 'put back');
    assert.equal((await again.call('GET', '/v2/webhookrec')).status, 404, 'the recurrence webhook removed');
    const pix = await again.payNewCharge('23.00');
    const [call] = await receiver.waitForCalls(1, '/before/pix');
    assert.equal(call.body.pix[0].endToEndId, pix.endToEndId, 'delivered to the original address');
  });
});
