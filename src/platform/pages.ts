/**
 * The pages listener: the same app on a second port whose TLS handshake asks for no client certificate, so
 * a browser never shows a certificate picker. The main listener asks for one (Pix routes need it), which
 * makes browsers prompt whenever the person has any certificate installed. Only routes marked
 * `config: { page: true }` (pages people open: checkout, QR, consent, console) answer there; every other
 * path is 404, so the API is reachable only where a client certificate can be presented.
 */
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { ApiError } from './errors.ts';
import type { ServicePki } from './bootstrap.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served on the pages listener too (a page a person opens in a browser). */
    page?: boolean;
  }
}

export interface Pages {
  /** The origin of the pages listener, as browsers reach it (known for sure once it listens). */
  url: string;
  /** Connections accepted by the pages listener. */
  readonly sockets: WeakSet<TLSSocket>;
  /** Its open connections from their first byte, the TLS handshake included: every one ends when it closes. */
  readonly connections: Set<Socket>;
}

export function pagesOf(config: Config): Pages {
  return { url: config.pagesUrl, sockets: new WeakSet(), connections: new Set() };
}

/** A request that came in on the pages listener to a route that is not a page: 404, as if it did not exist. */
export function onlyPagesThere(pages: Pages) {
  return async (request: FastifyRequest) => {
    if (!pages.sockets.has(request.raw.socket as TLSSocket) || request.routeOptions.config?.page) return;
    throw new ApiError(404, 'NaoEncontrado', 'Esta porta serve só as páginas (checkout, QR Code, console).');
  };
}

/** Listens for pages once the app is ready; the returned close stops it. */
export async function listenForPages(
  app: FastifyInstance,
  pages: Pages,
  config: Config,
  pki: ServicePki,
): Promise<() => Promise<void>> {
  const server = https.createServer(
    { key: pki.server.keyPem, cert: pki.server.certPem, minVersion: 'TLSv1.2' },
    (request, response) => app.routing(request, response),
  );
  server.on('secureConnection', (socket) => pages.sockets.add(socket));
  // Every connection from its first byte: closeAllConnections knows only those past their TLS handshake.
  const { connections } = pages;
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.pagesPort, config.host, resolve);
  });
  if (!config.pagesUrlGiven) {
    const { port } = server.address() as AddressInfo;
    pages.url = config.pagesUrl.replace(/:\d+$/, `:${port}`);
  }
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      // Pages close before the API drains (runtime.ts closes in reverse), so nothing refuses a request here: a
      // connection still in its handshake would finish it, open a page's live stream, and hold this close open
      // for ever (it hung a restart in a fresh-clone CI run). Every connection ends now, whatever its state.
      for (const socket of connections) socket.destroy();
    });
}
