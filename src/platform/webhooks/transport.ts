/**
 * Outbound HTTPS to integrators' receivers. TLS 1.2 or higher; the server is verified against the system
 * store plus NODE_EXTRA_CA_CERTS (see settings.ts); the service's webhook client certificate, with its CA
 * chain, is presented on every callback. One keep-alive agent per destination keeps a busy receiver on warm
 * connections instead of a TLS handshake per webhook.
 * A call never throws: it reports the HTTP status or a classified failure, with its latency.
 */
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import type { KeyPairPem } from '../pki.ts';
import { LIMITS } from '../limits.ts';
import { outboundCa, settingsGeneration, webhookSettings } from './settings.ts';
import { ForbiddenDestination, guardedLookup, type DestinationPolicy } from './destinations.ts';

/** Why no 2xx came back, in the terms a registration error or an attempt record needs. */
export type FailureKind =
  /** Name does not resolve, connection refused, host or network unreachable. */
  | 'unreachable'
  /** No complete answer within the timeout. */
  | 'timeout'
  /** Connected, then closed without an HTTP answer. */
  | 'no_response'
  /** TLS handshake failed (untrusted or wrong certificate, protocol version, client certificate refused). */
  | 'tls'
  /** An HTTP answer other than 2xx. */
  | 'http_status'
  /** Aborted because this node is shutting down (not the receiver's fault). */
  | 'aborted'
  /** The destination's address is one pixd may not call (destinations.ts): never connected. */
  | 'forbidden'
  /** Not an https: URL (one stored before the URL was checked where it is given): never connected. */
  | 'invalid_url';

/** The first `LIMITS.webhookAttemptBodyBytes` of a body as text, and its whole size. */
export interface BodyExcerpt {
  text: string;
  bytes: number;
}

export interface PostResult {
  ok: boolean;
  statusCode?: number;
  latencyMs: number;
  failure?: { kind: FailureKind; message: string };
  /** What was sent (absent when nothing was: a refused destination, a stopping node). */
  request?: BodyExcerpt;
  /** What the receiver answered, when it answered. */
  response?: BodyExcerpt;
}

/**
 * The start of a body as text: a character cut in half at the end becomes U+FFFD, and NUL (which a
 * PostgreSQL text column refuses; a receiver may answer anything) becomes U+FFFD too.
 */
export function excerptOf(head: Buffer, bytes: number): BodyExcerpt {
  const text = head.subarray(0, LIMITS.webhookAttemptBodyBytes).toString('utf8').replaceAll('\0', '\uFFFD');
  return { text, bytes };
}

export interface PostOptions {
  /** Present the service's webhook client certificate (always, except the handshake's first check). */
  clientCertificate: boolean;
  /** The whole call, from the request to the answer's last byte; a new connection's handshake has a shorter one. */
  timeoutMs: number;
  /** A new connection used once (handshake): no pooled connection or TLS session is reused. */
  fresh?: boolean;
  headers?: Record<string, string>;
  /** Send the body as `application/x-www-form-urlencoded` (billing notifications: `notification=<token>`). */
  form?: boolean;
}

const USER_AGENT = 'pixd-webhooks/0.1';
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'EHOSTDOWN',
]);
const NO_RESPONSE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
const TLS_CODE =
  /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|ERR_OSSL_|HOSTNAME_MISMATCH|ERR_TLS_CERT_ALTNAME)/;

class TimeoutError extends Error {
  readonly code = 'WEBHOOK_TIMEOUT';
}
class AbortedError extends Error {
  readonly code = 'WEBHOOK_ABORTED';
}

export function classify(error: unknown): { kind: FailureKind; message: string } {
  const e = error as NodeJS.ErrnoException & { reason?: string };
  const code = e?.code ?? '';
  if (e instanceof ForbiddenDestination) return { kind: 'forbidden', message: e.message };
  if (e instanceof TimeoutError) return { kind: 'timeout', message: e.message };
  if (e instanceof AbortedError) return { kind: 'aborted', message: e.message };
  if (UNREACHABLE.has(code)) return { kind: 'unreachable', message: `${code}: ${e.message}` };
  if (TLS_CODE.test(code)) return { kind: 'tls', message: `${code}: ${e.reason ?? e.message}` };
  if (NO_RESPONSE.has(code) || /socket hang up/i.test(e?.message ?? ''))
    return { kind: 'no_response', message: `${code || 'ECONNRESET'}: ${e.message}` };
  return { kind: 'no_response', message: code ? `${code}: ${e.message}` : String(e?.message ?? error) };
}

export class WebhookTransport {
  private readonly agents = new Map<string, https.Agent>();
  private agentsGeneration = settingsGeneration();
  private readonly inFlight = new Set<{ abort(): void }>();
  private closed = false;

  constructor(
    private readonly clientIdentity: KeyPairPem,
    private readonly chainPem: string,
    private readonly destinations: DestinationPolicy,
  ) {}

  /**
   * One TLS context per client-certificate mode, built once per settings generation: without it every new
   * connection would parse the whole trust list again (hundreds of roots when an extra CA is configured).
   */
  private readonly contexts = new Map<boolean, tls.SecureContext>();

  private secureContext(clientCertificate: boolean): tls.SecureContext {
    let context = this.contexts.get(clientCertificate);
    if (!context) {
      context = tls.createSecureContext({
        minVersion: 'TLSv1.2',
        ca: outboundCa(this.chainPem),
        ...(clientCertificate && {
          cert: this.clientIdentity.certPem + this.chainPem,
          key: this.clientIdentity.keyPem,
        }),
      });
      this.contexts.set(clientCertificate, context);
    }
    return context;
  }

  private agentOptions(clientCertificate: boolean, keepAlive: boolean): https.AgentOptions {
    return {
      keepAlive,
      maxSockets: LIMITS.webhookSocketsPerDestination,
      minVersion: 'TLSv1.2',
      secureContext: this.secureContext(clientCertificate),
      // Every connection checks the addresses its name resolves to (no DNS-rebinding bypass).
      lookup: guardedLookup(this.destinations) as https.AgentOptions['lookup'],
    };
  }

  /** The pooled agent for one destination (origin) with the client certificate. */
  private pooledAgent(origin: string): https.Agent {
    this.refreshOnSettingsChange();
    let agent = this.agents.get(origin);
    if (!agent) {
      agent = new https.Agent(this.agentOptions(true, true));
      this.agents.set(origin, agent);
    }
    return agent;
  }

  post(url: string, body: unknown, options: PostOptions): Promise<PostResult> {
    // A job that was already claimed when the node began stopping goes back at once, unsent.
    if (this.closed)
      return Promise.resolve({
        ok: false,
        latencyMs: 0,
        failure: classify(new AbortedError('o nó está sendo encerrado.')),
      });
    const payload = options.form
      ? new URLSearchParams(body as Record<string, string>).toString()
      : JSON.stringify(body);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve({
        ok: false,
        latencyMs: 0,
        failure: { kind: 'invalid_url', message: `"${url}" não é uma URL.` },
      });
    }
    if (target.protocol !== 'https:')
      return Promise.resolve({
        ok: false,
        latencyMs: 0,
        failure: {
          kind: 'invalid_url',
          message: `pixd entrega somente por HTTPS (a URL usa ${target.protocol.replace(':', '')}).`,
        },
      });
    // An IP literal is never looked up, so it is checked here, before any connection.
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    const refused = net.isIP(literal) ? this.destinations.refusal(literal) : undefined;
    if (refused) return Promise.resolve({ ok: false, latencyMs: 0, failure: classify(refused) });
    this.refreshOnSettingsChange();
    const payloadBuffer = Buffer.from(payload);
    const request = excerptOf(payloadBuffer, payloadBuffer.length);
    const oneOff = options.fresh ? new https.Agent(this.agentOptions(options.clientCertificate, false)) : undefined;
    const agent = oneOff ?? this.pooledAgent(target.origin);
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      const finish = (result: PostResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(handle);
        oneOff?.destroy();
        resolve(result);
      };
      const fail = (error: unknown) => finish({ ok: false, latencyMs: latency(), failure: classify(error), request });
      const call = https.request(target, {
        method: 'POST',
        agent,
        headers: {
          'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
          'content-length': String(payloadBuffer.length),
          'user-agent': USER_AGENT,
          ...options.headers,
        },
      });
      const handle = {
        abort: () => call.destroy(new AbortedError('envio interrompido: o nó está sendo encerrado.')),
      };
      this.inFlight.add(handle);
      const timer = setTimeout(
        () => call.destroy(new TimeoutError(`sem resposta em ${options.timeoutMs} ms.`)),
        options.timeoutMs,
      );
      // A new connection must be up (TCP and TLS) within the connect deadline: a receiver that accepts the
      // connection and never answers is given up in seconds. A pooled connection is already up.
      call.on('socket', (socket) => {
        if ((socket as tls.TLSSocket).authorized) return;
        const connectMs = Math.min(webhookSettings().connectTimeoutMs, options.timeoutMs);
        const connectTimer = setTimeout(
          () => call.destroy(new TimeoutError(`sem conexão TLS em ${connectMs} ms.`)),
          connectMs,
        );
        socket.once('secureConnect', () => clearTimeout(connectTimer));
        socket.once('close', () => clearTimeout(connectTimer));
      });
      call.on('error', fail);
      call.on('response', (response) => {
        const statusCode = response.statusCode ?? 0;
        // The receiver is untrusted: only the answer's first bytes are kept (for the attempt record); the
        // rest is drained uncounted in memory, so the socket goes back to the pool, within the timeout.
        const head: Buffer[] = [];
        let kept = 0;
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (kept < LIMITS.webhookAttemptBodyBytes) {
            const part = chunk.subarray(0, LIMITS.webhookAttemptBodyBytes - kept);
            head.push(part);
            kept += part.length;
          }
        });
        response.on('error', fail);
        response.on('end', () => {
          const ok = statusCode >= 200 && statusCode < 300;
          finish({
            ok,
            statusCode,
            latencyMs: latency(),
            ...(!ok && { failure: { kind: 'http_status' as const, message: `HTTP ${statusCode}` } }),
            request,
            response: excerptOf(Buffer.concat(head), bytes),
          });
        });
      });
      call.end(payloadBuffer);
    }).catch((error: unknown) => {
      // https.request throws at once on what it cannot send (a header value, say): a failure like any other.
      oneOff?.destroy();
      return { ok: false, latencyMs: latency(), failure: classify(error), request };
    });
  }

  /** Shutdown: every call in flight ends now as `aborted`, and the pools close. */
  close(): void {
    this.closed = true;
    for (const call of [...this.inFlight]) call.abort();
    this.destroyAgents();
  }

  private refreshOnSettingsChange(): void {
    if (this.agentsGeneration !== settingsGeneration()) this.destroyAgents();
  }

  private destroyAgents(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
    this.contexts.clear();
    this.agentsGeneration = settingsGeneration();
  }
}
