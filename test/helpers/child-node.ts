/**
 * A pixd node in its own process (test/webhooks/pixd-node.child.ts), so a test can kill it with SIGKILL
 * and start another on the same data: its credentials, and a client of its API as the demo party.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { HttpsClient, type Identity } from './https-client.ts';
import type { CredentialsFile } from '../../src/accounts/credentials.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'webhooks', 'pixd-node.child.ts');

export interface ChildNode {
  child: ChildProcess;
  baseUrl: string;
  credentialsPath: string;
}

export async function startChildNode(env: Record<string, string>): Promise<ChildNode> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    // The pages on a free port of their own unless the test names one: PORT + 1 may be another test's.
    env: { ...process.env, PIXD_PAGES_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, ...JSON.parse(line) };
}

export async function killNode(node: ChildNode): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = once(node.child, 'exit');
  node.child.kill('SIGKILL');
  await exited;
}

/** The demo party of a node's data directory: credentials, client certificate, a token on demand. */
export function demoClient(credentialsPath: string, baseUrl: string) {
  const credentials = JSON.parse(fs.readFileSync(credentialsPath, 'utf8')) as CredentialsFile;
  const caPem = fs.readFileSync(credentials.caCertificate, 'utf8');
  const identity: Identity = {
    certPem: fs.readFileSync(credentials.certificate.pem, 'utf8'),
    keyPem: fs.readFileSync(credentials.certificate.key, 'utf8'),
  };
  const http = new HttpsClient(baseUrl, caPem, identity);
  let token: string | undefined;
  return {
    credentials,
    caPem,
    http,
    async token(): Promise<string> {
      token ??= (
        await http.request('POST', '/oauth/token', {
          body: { grant_type: 'client_credentials' },
          headers: {
            authorization:
              'Basic ' + Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64'),
          },
        })
      ).body.access_token as string;
      return token;
    },
    chaves: credentials.chaves,
  };
}
