/** The part of autocannon 9's programmatic API the bench uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';
  import type { ConnectionOptions } from 'node:tls';

  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /**
     * In a sequence (`Client.setRequests`), builds this request from the connection's context (what earlier
     * answers left there); a falsy result starts the sequence over. The context is emptied at each new round.
     */
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request | undefined;
    /** Called with every answer to this request: its status, body and the connection's context. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  }

  /** One connection. `opts` is the client's own clone of the options: read by `tls.connect` after `setupClient`. */
  interface Client extends EventEmitter {
    opts: { tlsOptions: ConnectionOptions };
    setRequests(requests: Request[]): void;
  }

  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
  }

  interface Options extends Request {
    url: string;
    connections?: number;
    duration?: number;
    overallRate?: number;
    connectionRate?: number;
    timeout?: number;
    tlsOptions?: ConnectionOptions;
    setupClient?: (client: Client) => void;
  }

  interface Result {
    duration: number;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  /** Emits `response` (client, statusCode, bytes, responseTimeMs) for every response. */
  interface Instance extends EventEmitter {
    stop(): void;
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
  export type { Client, Options, Request, Result };
}
