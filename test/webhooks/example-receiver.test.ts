/** The receiver shipped in examples/webhook-receiver works as its README says: mutual TLS with pixd's CA. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { issueCertificate } from '../../src/platform/pki.ts';
import { trustTestCa, webhookApi } from '../helpers/receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';

describe('examples/webhook-receiver', () => {
  let svc: TestService;
  let child: ChildProcess;
  const printed: string[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-example-'));

  before(async () => {
    svc = await startTestService();
    // The receiver's own certificate, from a CA pixd trusts (what NODE_EXTRA_CA_CERTS does in the README).
    const identity = issueCertificate(trustTestCa(), {
      commonName: 'localhost',
      usage: 'server',
      altNames: ['127.0.0.1'],
    });
    const file = (name: string, content: string) => {
      fs.writeFileSync(path.join(scratch, name), content);
      return path.join(scratch, name);
    };
    child = spawn(process.execPath, ['examples/webhook-receiver/server.mjs'], {
      env: {
        ...process.env,
        TLS_KEY: file('receiver.key.pem', identity.keyPem),
        TLS_CERT: file('receiver.pem', identity.certPem),
        PIXD_CA: file('pixd-ca.pem', svc.caPem),
        PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: child.stdout! }).on('line', (line) => printed.push(line));
  });
  after(async () => {
    child.kill();
    await svc.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("passes pixd's registration handshake and prints each callback with pixd's certificate name", async () => {
    const listening = await waitFor(
      async () => printed.find((line) => line.startsWith('listening on ')),
      'example listening',
    );
    const url = `${listening.slice('listening on '.length)}/webhook`;
    const api = webhookApi(svc.demo);
    // Without x-skip-mtls-checking: the receiver must refuse the handshake's call without a certificate.
    await api.registerPix(url);
    const pix = await api.payNewCharge('13.00');
    const line = await waitFor(async () => printed.find((l) => l.includes(pix.endToEndId)), 'callback printed');
    const callback = JSON.parse(line);
    assert.equal(callback.path, '/webhook/pix');
    assert.equal(callback.from, 'pixd webhooks');
    assert.equal(callback.body.pix[0].valor, '13.00');
  });
});
