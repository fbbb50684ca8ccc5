/**
 * DATABASE_URL naming several hosts, as libpq's clients accept it
 * (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`), so a node rides through a failover
 * without a proxy: node-postgres takes one host, so pixd finds the writable one itself — the hosts in order,
 * each asked `SHOW transaction_read_only` — and every new connection goes there. When a connection finds its
 * host gone or read-only (a failover), the host is forgotten: connections made to it are dropped as they come
 * back to the pool, and the next connection looks again (docs/operations.md, "Failover").
 */
import type pg from 'pg';

export interface DatabaseHost {
  host: string;
  port: number;
}

export interface DatabaseTarget {
  hosts: DatabaseHost[];
  /** Connect only to a host that accepts writes: several hosts, or target_session_attrs read-write/primary. */
  writableOnly: boolean;
  /** The URL for one host: what node-postgres parses (user, password, database, settings). */
  urlFor(host: DatabaseHost): string;
}

const DEFAULT_PORT = 5432;
/** Values of target_session_attrs that name a writable server (libpq: `primary` since PostgreSQL 14). */
const WRITABLE_ATTRS = ['read-write', 'primary'];
/** scheme, then user info, then the host list, then path, query and fragment. */
const MULTI_HOST_URL = /^(postgres(?:ql)?:)\/\/(?:([^@/?#]*)@)?([^/?#]*)(.*)$/s;

/** Throws an Error whose message says what is wrong (config.ts turns it into a start-up error). */
export function parseDatabaseUrl(raw: string): DatabaseTarget {
  const parts = MULTI_HOST_URL.exec(raw);
  if (!parts) throw new Error('not a valid URL');
  const [, scheme, userInfo, hostList, rest] = parts;
  const hosts = hostList.split(',').map(parseHost);
  // The first host stands in for all while the URL's other parts are checked and parsed.
  const url = new URL(`${scheme}//${userInfo === undefined ? '' : `${userInfo}@`}${hostText(hosts[0])}${rest}`);
  const attrs = url.searchParams.get('target_session_attrs');
  if (attrs !== null && attrs !== 'any' && !WRITABLE_ATTRS.includes(attrs))
    throw new Error(`target_session_attrs=${attrs}: pixd writes, so it needs read-write (or primary, or any)`);
  // node-postgres would ignore the setting; pixd applies it (PrimaryRouter).
  url.searchParams.delete('target_session_attrs');
  // Several hosts are for a failover: the node follows the writable one even when `any` or nothing says so.
  const writableOnly = hosts.length > 1 || (attrs !== null && WRITABLE_ATTRS.includes(attrs));
  return {
    hosts,
    writableOnly,
    urlFor(host) {
      const one = new URL(url);
      one.host = hostText(host);
      return one.toString();
    },
  };
}

function parseHost(text: string): DatabaseHost {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  const port = match?.[2] === undefined ? DEFAULT_PORT : Number(match[2]);
  if (!match || port < 1 || port > 65535) throw new Error(`"${text}" is not a host or host:port`);
  return { host: match[1].replace(/^\[(.*)\]$/, '$1'), port };
}

const hostText = ({ host, port }: DatabaseHost) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** An error node-postgres would give for a host out of reach: SQLSTATE 08001, so the request answers 503. */
class NoWritableHost extends Error {
  readonly code = '08001';
}

/**
 * Which host new connections go to. `primary()` finds it once and remembers it; `lost(generation)` forgets
 * it, once per generation however many connections report the same loss at once.
 */
export class PrimaryRouter {
  private known: Promise<DatabaseHost> | undefined;
  /** Bumped each time the known host is forgotten: a connection made before is to a host since lost. */
  generation = 0;

  constructor(
    private readonly pgModule: typeof pg,
    private readonly target: DatabaseTarget,
    private readonly probeTimeoutMs: number,
  ) {}

  /** One host that need not be writable: no looking, no forgetting (node-postgres alone, as with any URL). */
  get routed(): boolean {
    return this.target.writableOnly || this.target.hosts.length > 1;
  }

  primary(): Promise<DatabaseHost> {
    if (!this.routed) return Promise.resolve(this.target.hosts[0]);
    this.known ??= this.find().catch((error) => {
      this.known = undefined;
      throw error;
    });
    return this.known;
  }

  lost(generation: number): void {
    if (!this.routed || generation !== this.generation) return;
    this.generation++;
    this.known = undefined;
  }

  private async find(): Promise<DatabaseHost> {
    const refusals: string[] = [];
    for (const host of this.target.hosts) {
      const client = new this.pgModule.Client({
        connectionString: this.target.urlFor(host),
        connectionTimeoutMillis: this.probeTimeoutMs,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        if (!this.target.writableOnly) return host;
        const { rows } = await client.query<{ transaction_read_only: string }>('show transaction_read_only');
        if (rows[0].transaction_read_only === 'off') return host;
        refusals.push(`${hostText(host)} is read-only`);
      } catch (error) {
        refusals.push(`${hostText(host)}: ${(error as Error).message}`);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw new NoWritableHost(`no writable PostgreSQL host in DATABASE_URL (${refusals.join('; ')})`);
  }

  /** A node-postgres Client class whose connections go to the host `primary()` names, tagged with the generation. */
  clientClass(): typeof pg.Client {
    const router = this;
    return class RoutedClient extends this.pgModule.Client {
      generation = router.generation;

      override connect(): Promise<pg.Client>;
      override connect(callback: (err: Error | null, client?: pg.Client) => void): void;
      override connect(callback?: (err: Error | null, client?: pg.Client) => void): Promise<pg.Client> | undefined {
        const connected = router.primary().then(({ host, port }) => {
          this.generation = router.generation;
          // Read by Client#connect when it opens the socket.
          Object.assign(this, { host, port });
          return super.connect();
        });
        if (!callback) return connected;
        connected.then((client) => callback(null, client), callback);
        return undefined;
      }
    } as typeof pg.Client;
  }
}

/** The generation a pooled client was connected in (`PrimaryRouter.clientClass`). */
export const generationOf = (client: object): number => (client as { generation?: number }).generation ?? 0;
