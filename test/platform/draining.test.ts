/**
 * A node that is shutting down (SIGTERM, `close()`) lets the requests it is running finish and refuses those
 * that still reach it (a busy keep-alive connection, pipelined requests) with 503 in the route family's
 * error format, never Fastify's default body (issue 13, item 4).
 *
 * No sleeping: a webhook registration is held by a receiver that never answers its handshake, so the
 * connection stays busy; the close begins; once the node stopped listening (its drain has started) the
 * next requests are written on that same connection; the receiver then lets go.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Receiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { resetWebhookSettings, setWebhookSettings } from '../../src/platform/webhooks/settings.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Splits what a keep-alive connection received into its responses (bodies with Content-Length). */
function parseResponses(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.subarray(0, 8).toString() === 'HTTP/1.1') {
    const headEnd = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.subarray(0, headEnd).toString().split('\r\n');
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    const text = rest.subarray(headEnd + 4, headEnd + 4 + length).toString();
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined });
    rest = rest.subarray(headEnd + 4 + length);
  }
  return responses;
}

describe('a draining node', () => {
  let svc: TestService;
  let receiver: Receiver;

  before(async () => {
    // The handshake waits as long as the test needs; the receiver ends it by dropping the connection.
    setWebhookSettings({ registrationTimeoutMs: 60_000 });
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    receiver.behaviour = 'hang';
  });
  after(async () => {
    resetWebhookSettings();
    await receiver.close();
  });

  it("refuses requests that reach it while it drains with 503 in the family's format", async () => {
    const url = new URL(svc.baseUrl);
    const token = await svc.demo.token();
    const socket = tls.connect({
      host: url.hostname,
      port: Number(url.port),
      ca: svc.caPem,
      cert: svc.demo.identity.certPem,
      key: svc.demo.identity.keyPem,
      servername: url.hostname === '127.0.0.1' ? undefined : url.hostname,
    });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));

    const body = JSON.stringify({ webhookUrl: `${receiver.url}/hold` });
    socket.write(
      `PUT /v2/webhook/${encodeURIComponent(svc.demo.chaves[0])} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await receiver.waitForCalls(1, '/hold');

    const closing = svc.close();
    // The drain has begun once the node stops listening (after its preClose hooks ran).
    await waitFor(async () => !svc.service.app.server.listening, 'the node to stop listening');
    socket.write(
      `GET /v2/cob?inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`,
    );
    socket.write(`GET /v1/charge/1 HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    // The request held so far may finish now.
    await receiver.down();
    await ended;
    await closing;

    const received = Buffer.concat(chunks);
    const responses = parseResponses(received);
    assert.ok(responses.length >= 2, `the held request and the refusal were answered: ${received}`);
    assert.notEqual(responses[0].status, 503, 'the request already running finished normally');
    const refused = responses[1];
    assert.equal(refused.status, 503, received.toString());
    assert.match(refused.headers['content-type'], /^application\/problem\+json/);
    assert.equal(refused.body.type, 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel');
    assert.equal(refused.body.status, 503);
    assert.match(refused.body.detail, /desligado/);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.headers.connection, 'close', 'the client reconnects, to another node');
    assert.equal(responses.length, 2, 'nothing more on a connection the node closed');
  });
});
