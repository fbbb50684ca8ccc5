/**
 * Webhook registration must not probe the institution's own network. Production refuses loopback, private,
 * link-local and metadata destinations, by literal or by a name resolving there, before connecting; the
 * sandbox allows loopback only; PIXD_WEBHOOK_ALLOW admits ranges an operator chooses. Refusals name the
 * category, never what answered. No test here sends a packet beyond loopback: refused destinations are
 * refused before any connection.
 */
// suite: serial (a 1.5 s registration timeout): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Receiver } from '../helpers/receiver.ts';
import { setWebhookSettings } from '../../src/platform/webhooks/settings.ts';
import { categoryOf } from '../../src/platform/webhooks/destinations.ts';

async function register(svc: TestService, webhookUrl: string) {
  const token = await svc.demo.token();
  return svc.demo.http.request('PUT', `/v2/webhook/${encodeURIComponent(svc.demo.chaves[0])}`, {
    token,
    body: { webhookUrl },
  });
}

describe('faults: webhook destinations (SSRF)', () => {
  let receiver: Receiver;
  const services: TestService[] = [];
  const start = async (settings: Record<string, string>) => {
    const svc = await startTestService(settings);
    services.push(svc);
    return svc;
  };

  before(async () => {
    setWebhookSettings({ registrationTimeoutMs: 1500 });
    receiver = await Receiver.start();
  });
  after(async () => {
    for (const svc of services) await svc.close();
    await receiver.close();
  });

  it('classifies the ranges', () => {
    const cases: [string, string | undefined][] = [
      ['127.0.0.1', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.20.0.1', 'private'],
      ['192.168.0.10', 'private'],
      ['fd12::1', 'private'],
      ['100.64.0.1', 'shared'],
      ['169.254.169.254', 'metadata'],
      ['169.254.1.1', 'link-local'],
      ['fe80::1', 'link-local'],
      ['224.0.0.1', 'multicast'],
      ['0.0.0.0', 'unspecified'],
      ['8.8.8.8', undefined],
      ['2001:4860:4860::8888', undefined],
    ];
    for (const [address, category] of cases) assert.equal(categoryOf(address), category, address);
  });

  it('production refuses internal destinations, by literal and by name, without connecting', async () => {
    const svc = await start({ PIXD_ENV: 'production' });
    const port = receiver.port;
    const cases: [string, RegExp][] = [
      [`https://127.0.0.1:${port}/hook`, /loopback/],
      [`https://localhost:${port}/hook`, /loopback/],
      [`https://[::1]:${port}/hook`, /loopback/],
      [`https://[::ffff:127.0.0.1]:${port}/hook`, /loopback/],
      [`https://10.0.0.1:${port}/hook`, /rede privada/],
      ['https://169.254.169.254/latest/meta-data', /metadados/],
      [`https://192.168.1.1:${port}/hook`, /rede privada/],
    ];
    for (const [url, category] of cases) {
      const res = await register(svc, url);
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.body.type, /WebhookOperacaoInvalida$/);
      assert.match(res.body.detail, /destino não permitido/);
      assert.match(res.body.detail, category, url);
    }
    assert.equal(receiver.connections, 0, 'no refused destination was ever connected to');
  });

  it('the sandbox allows loopback receivers and refuses other private destinations', async () => {
    const svc = await start({ PIXD_ENV: 'sandbox' });
    for (const url of ['https://10.0.0.1/hook', 'https://192.168.0.1/hook', 'https://169.254.169.254/']) {
      const res = await register(svc, url);
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.body.detail, /destino não permitido/);
    }
    assert.equal(receiver.connections, 0);
    // Loopback is reached (here the receiver asks no certificate, so the handshake fails on mTLS, not on policy).
    const local = await register(svc, `${receiver.url}/hook`);
    assert.equal(local.status, 400);
    assert.doesNotMatch(local.body.detail, /destino não permitido/);
    assert.ok(receiver.connections > 0, 'the loopback receiver was called');
  });

  it('an operator allow-list admits a range in production', async () => {
    const svc = await start({ PIXD_ENV: 'production', PIXD_WEBHOOK_ALLOW: '127.0.0.0/8' });
    const mutual = await Receiver.start({ clientCaPem: svc.caPem });
    try {
      const res = await register(svc, `${mutual.url}/hook`);
      assert.equal(res.status, 201, res.text);
    } finally {
      await mutual.close();
    }
  });
});
