/**
 * Child process of the webhook-delivery bench: a mutual-TLS receiver that answers 200 and notes, per
 * endToEndId, when each callback arrived (wall clock, sub-millisecond). It gets its certificates over IPC,
 * replies {port}, and on each {report: true} sends back every receipt time so far; {hang: true} makes it
 * stand for a dead receiver: new TCP connections are accepted and never get a byte (not even the TLS
 * handshake), requests on connections already open are read and never answered. It exits with its parent.
 */
import https from 'node:https';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

interface Start {
  keyPem: string;
  certPem: string;
  /** The pixd service CA: client certificates must chain to it. */
  clientCaPem: string;
}

const wallNowMs = () => performance.timeOrigin + performance.now();
const receipts: Record<string, number[]> = {};
let otherCalls = 0;
let hanging = false;

process.once('message', (start: Start) => {
  const server = https.createServer(
    {
      key: start.keyPem,
      cert: start.certPem,
      ca: start.clientCaPem,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      keepAliveTimeout: 30_000,
    },
    (req, res) => {
      if (hanging) return; // never answered: pixd's timeout ends it
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const at = wallNowMs();
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { pix?: { endToEndId: string }[] };
        if (body.pix) for (const p of body.pix) (receipts[p.endToEndId] ??= []).push(at);
        else otherCalls++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    },
  );
  server.on('tlsClientError', () => undefined);
  // Accepts the connections and hands them to the TLS server, unless hanging.
  const held = new Set<net.Socket>();
  const front = net.createServer((socket) => {
    if (!hanging) return void server.emit('connection', socket);
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
  });
  front.listen(0, '127.0.0.1', () => {
    process.send!({ port: (front.address() as { port: number }).port });
    process.on('message', (message: { report?: boolean; hang?: boolean }) => {
      if (message.hang !== undefined) {
        hanging = message.hang;
        process.send!({ hanging });
      }
      if (message.report) process.send!({ receipts, otherCalls });
    });
  });
});
process.on('disconnect', () => process.exit(0));
