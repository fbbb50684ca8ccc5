/**
 * The benches' webhook receiver: a child process (`scenarios/webhook-receiver.ts`, its own core for TLS)
 * answering pixd's mutual-TLS callbacks, with a server certificate from one bench CA.
 *
 * pixd must trust that CA. In-process benches hand it over with `setWebhookSettings({ extraCaPem })`; a pixd
 * child reads it from NODE_EXTRA_CA_CERTS (`receiverCaFile()`), which Node applies at start, as an operator
 * would add a private CA.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createCa, issueCertificate, type KeyPairPem } from '../src/platform/pki.ts';
import { onCleanup } from './lifecycle.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

let ca: KeyPairPem | undefined;
let caFile: string | undefined;

/** One CA for every receiver of this bench process. */
export function receiverCa(): KeyPairPem {
  ca ??= createCa('bench receiver CA');
  return ca;
}

/** The receiver CA as a PEM file, for a child's NODE_EXTRA_CA_CERTS; removed when the bench ends. */
export function receiverCaFile(): string {
  if (!caFile) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-bench-ca-'));
    caFile = path.join(dir, 'receiver-ca.pem');
    fs.writeFileSync(caFile, receiverCa().certPem);
    onCleanup(async () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return caFile;
}

export interface Receiver {
  url: string;
  /** Every callback's receipt times (wall clock, ms) per endToEndId, and calls without Pix. */
  report(): Promise<{ receipts: Record<string, number[]>; otherCalls: number }>;
  /** From now on, read requests and never answer them (a dead receiver). */
  hang(): Promise<void>;
  kill(): void;
}

/** Starts a receiver whose callers' client certificates must chain to `clientCaPem` (pixd's CA). */
export async function startReceiver(clientCaPem: string): Promise<Receiver> {
  const identity = issueCertificate(receiverCa(), {
    commonName: 'bench receiver',
    usage: 'server',
    altNames: ['127.0.0.1', 'localhost'],
  });
  const child = fork(path.join(here, 'scenarios', 'webhook-receiver.ts'), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`receiver exited (code ${code}, signal ${signal})`))),
  );
  exited.catch(() => undefined);
  child.send({ keyPem: identity.keyPem, certPem: identity.certPem, clientCaPem });
  const { port } = await Promise.race([
    new Promise<{ port: number }>((resolve) => child.once('message', resolve as never)),
    exited,
  ]);
  return {
    url: `https://127.0.0.1:${port}`,
    async report() {
      child.send({ report: true });
      return new Promise((resolve) => child.once('message', resolve as never));
    },
    async hang() {
      child.send({ hang: true });
      await new Promise((resolve) => child.once('message', resolve as never));
    },
    kill: () => child.kill(),
  };
}
