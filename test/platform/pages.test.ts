/**
 * The pages listener: the same app on a second port that asks browsers for no client certificate, serving
 * only the pages people open (and what those pages fetch); the API answers 404 there.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { HttpsClient } from '../helpers/https-client.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';

/** What a TLS server asks of the client: openssl prints the CA names of a certificate request, or says none came. */
function certificateRequest(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const child = execFile(
      'openssl',
      ['s_client', '-connect', `${hostname}:${port}`],
      { timeout: 10_000 },
      (_e, stdout) => resolve(stdout),
    );
    child.stdin!.end();
  });
}

describe('pages listener', () => {
  let svc: TestService;
  let pages: HttpsClient;
  before(async () => {
    svc = await startTestService();
    pages = new HttpsClient(svc.service.ctx.pages.url, svc.caPem);
  });
  after(() => svc.close());

  it('asks for no client certificate, where the API listener does', async () => {
    assert.notEqual(new URL(svc.service.ctx.pages.url).port, new URL(svc.baseUrl).port);
    assert.match(await certificateRequest(svc.service.ctx.pages.url), /No client certificate CA names sent/);
    assert.match(await certificateRequest(svc.baseUrl), /Acceptable client certificate CA names/);
  });

  it('serves the pages and what they fetch, and nothing else', async () => {
    const landing = await pages.request('GET', '/');
    assert.equal(landing.status, 200);
    assert.match(String(landing.headers['content-type']), /^text\/html/);
    assert.equal((await pages.request('GET', '/web/payment-token.js')).status, 200);
    const icon = await pages.request('GET', '/favicon.ico');
    assert.equal(icon.status, 200, 'browsers ask every page for it');
    assert.equal(icon.headers['content-type'], 'image/x-icon');
    assert.ok(icon.text.startsWith('\0\0\u0001\0'), 'an ICO file');
    assert.equal((await pages.request('GET', '/.well-known/jwks.json')).status, 200);
    for (const [method, path] of [
      ['GET', '/v2/cob?inicio=2020-01-01T00:00:00Z&fim=2020-01-02T00:00:00Z'],
      ['POST', '/oauth/token'],
      ['GET', '/docs'],
      ['GET', '/sandbox/clock'],
    ] as const) {
      const res = await pages.request(method, path, { body: method === 'POST' ? {} : undefined });
      assert.equal(res.status, 404, `${method} ${path}`);
    }
  });

  it('is on PORT + 1 unless PIXD_PAGES_PORT says otherwise, and never on PORT itself', () => {
    assert.equal(loadConfig({ PORT: '8443' }).pagesPort, 8444);
    assert.equal(loadConfig({ PORT: '8443' }).pagesUrl, 'https://127.0.0.1:8444');
    assert.equal(loadConfig({ PORT: '0' }).pagesPort, 0);
    assert.equal(loadConfig({ PORT: '8443', PIXD_PAGES_PORT: '9000' }).pagesPort, 9000);
    assert.equal(loadConfig({ PIXD_PAGES_URL: 'https://pay.example.com/' }).pagesUrl, 'https://pay.example.com');
    // Behind a proxy, one public origin serves both unless the pages have their own.
    assert.equal(loadConfig({ PIXD_PUBLIC_URL: 'https://pix.example.com' }).pagesUrl, 'https://pix.example.com');
    assert.throws(() => loadConfig({ PORT: '8443', PIXD_PAGES_PORT: '8443' }), ConfigError);
  });
});

describe('pages listener, closing', () => {
  // Node's TLS server ends a handshake that never completes after two minutes (tls.createServer's default).
  const HANDSHAKE_TIMEOUT_MS = 120_000;

  it('ends a connection still in its TLS handshake at once: finished later, it could open a live stream and hold the close', async () => {
    const svc = await startTestService();
    const pages = svc.service.ctx.pages;
    const client = net.connect(Number(new URL(pages.url).port), '127.0.0.1');
    await once(client, 'connect');
    await waitFor(async () => pages.connections.size === 1, 'the pages listener to accept the connection');
    const ended = once(client, 'close');
    const startedMs = Date.now();
    await svc.close();
    await ended;
    // Before, the close waited for the handshake to end one way or the other: two minutes of nothing, or a page's
    // live stream that nothing ended (a fresh-clone CI run hung on one).
    assert.ok(Date.now() - startedMs < HANDSHAKE_TIMEOUT_MS / 2, 'the close did not wait for the handshake');
    assert.equal(pages.connections.size, 0);
  });
});
