/** A small HTTPS client for tests: real TLS, optional client certificate, JSON in and out. */
import https from 'node:https';

export interface Identity {
  certPem: string;
  keyPem: string;
}

export interface Response<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is (for malformed JSON tests). */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
  identity?: Identity | null;
}

export class HttpsClient {
  private readonly agents = new Map<Identity | null, https.Agent>();
  constructor(
    readonly baseUrl: string,
    private readonly caPem: string,
    private readonly defaultIdentity: Identity | null = null,
    /** The local address to connect from (another loopback address plays another source). */
    private readonly localAddress?: string,
  ) {}

  private agent(identity: Identity | null): https.Agent {
    let agent = this.agents.get(identity);
    if (!agent) {
      agent = new https.Agent({
        keepAlive: true,
        ca: this.caPem,
        localAddress: this.localAddress,
        ...(identity && { cert: identity.certPem, key: identity.keyPem }),
      });
      this.agents.set(identity, agent);
    }
    return agent;
  }

  request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Response<T>> {
    const identity = options.identity === undefined ? this.defaultIdentity : options.identity;
    const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (payload !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(path, this.baseUrl),
        { method, headers, agent: this.agent(identity) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: any = text;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              // Not JSON (metrics, HTML): the text is the body.
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
  }
}
