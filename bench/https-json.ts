/** One-off JSON requests over (mutual) TLS, for setting up a benchmark: accounts, tokens, fixtures. */
import fs from 'node:fs';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import type { RunningService } from '../src/runtime.ts';

export interface Tls {
  ca: string;
  cert?: string;
  key?: string;
}

export interface JsonResponse {
  status: number;
  body: any;
  /** Retry-After of a 429, in seconds. */
  retryAfterS?: number;
}

/** 429s a fixture request waits out before it fails: its application's window may still be full from a max run. */
const FIXTURE_RATE_LIMIT_RETRIES = 5;

export function requestJson(
  url: string,
  tls: Tls,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method: options.method ?? 'GET', headers, ...tls, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            // Not JSON: keep the text for the error message.
          }
          const retryAfter = Number(response.headers['retry-after']);
          resolve({ status: response.statusCode ?? 0, body, ...(retryAfter > 0 && { retryAfterS: retryAfter }) });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * `requestJson` that insists on one status and returns the body. A 429 is waited out (its Retry-After) a few
 * times first: a fixture made right after a run at an application's rate limit finds its window still full.
 */
export async function expectJson(status: number, what: string, ...args: Parameters<typeof requestJson>): Promise<any> {
  let response = await requestJson(...args);
  for (let retry = 0; response.status === 429 && retry < FIXTURE_RATE_LIMIT_RETRIES; retry++) {
    await sleep((response.retryAfterS ?? 1) * 1000);
    response = await requestJson(...args);
  }
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/**
 * A keep-alive JSON client of an in-process pixd (a standalone bench's): `send` with the authorization given,
 * over the service's own CA and an application's client certificate (the demo application's by default).
 */
export function keepAliveSender(
  service: RunningService,
  options: { identity?: { certPem: string; keyPem: string }; maxSockets?: number } = {},
) {
  const c = service.credentials;
  const agent = new https.Agent({
    keepAlive: true,
    ...(options.maxSockets && { maxSockets: options.maxSockets }),
    ca: fs.readFileSync(c.caCertificate),
    cert: options.identity?.certPem ?? fs.readFileSync(c.certificate.pem),
    key: options.identity?.keyPem ?? fs.readFileSync(c.certificate.key),
  });
  const { port } = service.app.server.address() as AddressInfo;
  const send = (method: string, urlPath: string, body: unknown, authorization: string): Promise<JsonResponse> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? '' : JSON.stringify(body);
      const request = https.request(
        `https://127.0.0.1:${port}${urlPath}`,
        {
          method,
          agent,
          headers: {
            authorization,
            ...(body !== undefined && { 'content-type': 'application/json' }),
            'content-length': String(Buffer.byteLength(payload)),
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  return { send, close: () => agent.destroy() };
}
