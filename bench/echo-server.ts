/**
 * Child process: the ceiling baseline. A bare node:https server with pixd's TLS setup (RSA server
 * certificate signed by a CA, client certificate requested and checked) that parses the JSON body and
 * writes it back. Anything pixd does per request beyond this is pixd's own cost.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCa, issueCertificate } from '../src/platform/pki.ts';
import { childLifecycle } from './processes.ts';

export interface EchoReady {
  url: string;
  caPem: string;
  client: { certPem: string; keyPem: string };
}

const lifecycle = childLifecycle();
const ca = createCa('bench echo CA');
const serverCert = issueCertificate(ca, {
  commonName: 'bench echo',
  usage: 'server',
  altNames: ['localhost', '127.0.0.1'],
});
const client = issueCertificate(ca, { commonName: 'bench echo client', usage: 'client' });

const server = https.createServer(
  // As pixd: the certificate is requested by TLS and checked per request, not refused in the handshake.
  {
    key: serverCert.keyPem,
    cert: serverCert.certPem,
    ca: ca.certPem,
    requestCert: true,
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2',
  },
  (request, response) => {
    const reply = (status: number, body: unknown) => {
      const payload = JSON.stringify(body);
      response.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(payload),
      });
      response.end(payload);
    };
    if (!(request.socket as TLSSocket).authorized) return reply(401, { error: 'client certificate required' });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        reply(200, chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {});
      } catch {
        reply(400, { error: 'invalid JSON' });
      }
    });
  },
);

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  const ready: EchoReady = { url: `https://127.0.0.1:${port}`, caPem: ca.certPem, client };
  lifecycle.ready(ready, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
