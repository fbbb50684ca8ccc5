/**
 * Real local HTTPS webhook receivers for tests. Each has a server certificate from a test CA (which pixd
 * is told to trust, see `trustTestCa`), and either requires the service's client certificate (mutual TLS,
 * trusting the service CA) or does not ask for one. A receiver counts what it got, answers with a chosen
 * status and body, can redirect (301/302 with a Location), can hang (to make the sender time out), can go
 * silent (accept TCP connections and never answer, not even the TLS handshake), and can go down and come
 * back on the same port.
 */
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import net, { type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCa, issueCertificate, type KeyPairPem } from '../../src/platform/pki.ts';
import { setWebhookSettings } from '../../src/platform/webhooks/settings.ts';
import { waitFor } from './wait.ts';

export interface ReceivedCall {
  path: string;
  body: any;
  headers: IncomingHttpHeaders;
  /** The caller presented a certificate the receiver verified. */
  clientCertificate: boolean;
  atMs: number;
}

/**
 * Answer with a status (and a body, `{}` unless given); redirect (301/302 with a Location, default 302);
 * hang until the caller gives up; or be silent: new connections are accepted and never get a byte (no TLS
 * handshake), requests on connections already open are not answered.
 */
export type Behaviour =
  | { status: number; body?: string }
  | { redirect: string; status?: 301 | 302 }
  | 'hang'
  | 'silent';

let testCa: KeyPairPem | undefined;
let serverIdentity: KeyPairPem | undefined;

/** One CA and server certificate per test process; pixd (in-process) trusts that CA for its callbacks. */
export function trustTestCa(): KeyPairPem {
  if (!testCa) {
    testCa = createCa('pixd test receivers CA');
    serverIdentity = issueCertificate(testCa, {
      commonName: 'receiver',
      usage: 'server',
      altNames: ['localhost', '127.0.0.1'],
    });
  }
  setWebhookSettings({ extraCaPem: testCa.certPem });
  return testCa;
}

export interface ReceiverOptions {
  /** Require and verify a client certificate issued by this CA (the pixd service CA). Absent: none asked. */
  clientCaPem?: string;
}

export class Receiver {
  readonly calls: ReceivedCall[] = [];
  behaviour: Behaviour = { status: 200 };
  private server: https.Server;
  /** Listens and hands connections to `server`, unless silent. */
  private front: net.Server;
  private readonly sockets = new Set<Socket>();
  /** TCP connections ever accepted: a refused destination must not even connect. */
  connections = 0;
  private readonly hanging = new Set<() => void>();
  port = 0;

  private constructor(private readonly options: ReceiverOptions) {
    this.server = this.createServer();
    this.front = this.createFront();
  }

  static async start(options: ReceiverOptions = {}): Promise<Receiver> {
    trustTestCa();
    const receiver = new Receiver(options);
    await receiver.listen(0);
    return receiver;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  private createServer(): https.Server {
    const mutual = this.options.clientCaPem !== undefined;
    const server = https.createServer(
      {
        key: serverIdentity!.keyPem,
        cert: serverIdentity!.certPem,
        minVersion: 'TLSv1.2',
        ...(mutual
          ? { requestCert: true, rejectUnauthorized: true, ca: this.options.clientCaPem }
          : { requestCert: false }),
      },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          if (String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
            body = Object.fromEntries(new URLSearchParams(text));
          } else {
            try {
              body = JSON.parse(text);
            } catch {
              // Not JSON: kept as text.
            }
          }
          this.calls.push({
            path: req.url ?? '',
            body,
            headers: req.headers,
            clientCertificate: (req.socket as TLSSocket).authorized === true,
            atMs: Date.now(),
          });
          const behaviour = this.behaviour;
          if (behaviour === 'hang' || behaviour === 'silent') {
            this.hanging.add(() => res.destroy());
            return;
          }
          if ('redirect' in behaviour) {
            res
              .writeHead(behaviour.status ?? 302, { location: behaviour.redirect, 'content-type': 'application/json' })
              .end('{}');
            return;
          }
          res.writeHead(behaviour.status, { 'content-type': 'application/json' }).end(behaviour.body ?? '{}');
        });
      },
    );
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      this.connections++;
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('tlsClientError', () => undefined);
    return server;
  }

  private createFront(): net.Server {
    return net.createServer((socket) => {
      if (this.behaviour !== 'silent') {
        this.server.emit('connection', socket);
        return;
      }
      this.connections++;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    });
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.front.once('error', reject);
      this.front.listen(port, '127.0.0.1', () => {
        this.front.off('error', reject);
        this.port = (this.front.address() as { port: number }).port;
        resolve();
      });
    });
  }

  /** Stops listening and drops every connection: callers now get "connection refused". */
  async down(): Promise<void> {
    for (const release of this.hanging) release();
    this.hanging.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.front.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async up(): Promise<void> {
    this.server = this.createServer();
    this.front = this.createFront();
    await this.listen(this.port);
  }

  /** Calls whose path starts with `prefix` (the path includes the query). */
  callsTo(prefix: string): ReceivedCall[] {
    return this.calls.filter((c) => c.path.startsWith(prefix));
  }

  async waitForCalls(count: number, prefix = '/', timeoutMs = 15_000): Promise<ReceivedCall[]> {
    return waitFor(
      async () => this.callsTo(prefix).length >= count && this.callsTo(prefix),
      `${count} call(s) to ${prefix} on ${this.url}`,
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    await this.down();
  }
}

/** What the webhook tests do through the API as one party. */
export interface WebhookApi {
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; text: string }>;
  /** PUT /v2/webhook/:chave on the party's first key; asserts 201. */
  registerPix(webhookUrl: string, skipMtls?: boolean): Promise<void>;
  /** A charge above the sandbox auto-settlement bound, paid at once through /sandbox/pix/pay. Returns the Pix. */
  payNewCharge(original?: string): Promise<{ endToEndId: string; txid: string }>;
  /** GET /sandbox/webhooks/entregas. */
  deliveries(topico?: string): Promise<any[]>;
}

export function webhookApi(party: {
  chaves: string[];
  http: { request(method: string, path: string, options: object): Promise<any> };
  token(): Promise<string>;
}): WebhookApi {
  const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    party.http.request(method, path, { token: await party.token(), body, headers });
  const expect = (res: { status: number; text: string }, status: number, what: string) => {
    if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  };
  return {
    call,
    async registerPix(webhookUrl, skipMtls) {
      const res = await call(
        'PUT',
        `/v2/webhook/${encodeURIComponent(party.chaves[0])}`,
        { webhookUrl },
        skipMtls ? { 'x-skip-mtls-checking': 'true' } : undefined,
      );
      expect(res, 201, 'register webhook');
    },
    async payNewCharge(original = '50.00') {
      const cob = await call('POST', '/v2/cob', {
        calendario: { expiracao: 3600 },
        valor: { original },
        chave: party.chaves[0],
      });
      expect(cob, 201, 'create charge');
      const paid = await call('POST', '/sandbox/pix/pay', { txid: cob.body.txid });
      expect(paid, 201, 'pay charge');
      return paid.body;
    },
    async deliveries(topico) {
      const res = await call('GET', `/sandbox/webhooks/entregas${topico ? `?topico=${topico}` : ''}`);
      expect(res, 200, 'deliveries');
      return res.body.entregas;
    },
  };
}
