/**
 * One application's keep-alive mutual-TLS client for the bench loops that chain requests (settlement,
 * sends): autocannon cannot send a request built from the previous answer.
 */
import https from 'node:https';
import type { Party, Target } from './targets.ts';
import { onCleanup } from './lifecycle.ts';

/** A request that gets no answer in this long counts as "no response". */
const REQUEST_TIMEOUT_MS = 30_000;
/** Wide enough for every Pix of a run. */
export const EVERYTHING = { inicio: '2000-01-01T00:00:00Z', fim: '2100-01-01T00:00:00Z' };

export interface Reply {
  status: number;
  body: any;
}

/** One application's keep-alive mutual-TLS client. */
export class PartyClient {
  private readonly agent: https.Agent;

  constructor(
    private readonly baseUrl: string,
    readonly party: Party,
    sockets: number,
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ...party.tls });
  }

  call(method: string, path: string, body?: string): Promise<Reply> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.party.token}` };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    return new Promise((resolve, reject) => {
      const request = https.request(`${this.baseUrl}${path}`, { method, headers, agent: this.agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // Not JSON: keep the text.
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
      });
      request.setTimeout(REQUEST_TIMEOUT_MS, () =>
        request.destroy(new Error(`${method} ${path}: no answer in ${REQUEST_TIMEOUT_MS} ms`)),
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  /** Received Pix this application can list in [inicio, fim]: quantidadeTotalDeItens of a one-item page. */
  async receivedCount(range: { inicio: string; fim: string } = EVERYTHING): Promise<number> {
    const reply = await this.call('GET', listPath(range, 1));
    const total = reply.body?.parametros?.paginacao?.quantidadeTotalDeItens;
    if (reply.status !== 200 || typeof total !== 'number')
      throw new Error(`GET /v2/pix: expected 200 with a total, got ${reply.status} ${JSON.stringify(reply.body)}`);
    return total;
  }

  close(): void {
    this.agent.destroy();
  }
}

export function listPath(range: { inicio: string; fim: string }, pageSize?: number): string {
  const query = `inicio=${encodeURIComponent(range.inicio)}&fim=${encodeURIComponent(range.fim)}`;
  return `/v2/pix?${query}${pageSize ? `&paginacao.itensPorPagina=${pageSize}` : ''}`;
}

/** One keep-alive client per application, destroyed when the bench ends. */
export function clientsFor(target: Pick<Target, 'url' | 'parties'>, socketsPerParty: number): PartyClient[] {
  const clients = target.parties.map((party) => new PartyClient(target.url, party, socketsPerParty));
  onCleanup(async () => clients.forEach((c) => c.close()));
  return clients;
}
