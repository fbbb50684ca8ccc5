/**
 * The servers a run measures: the echo ceiling and pixd on each database. Each is a child process; pixd
 * targets also get their applications (each with its own certificate and token), because POST /v2/cob
 * allows 500 req/s per application and a max-throughput run must not be measuring 429s.
 */
import fs from 'node:fs';
import { SCOPES, isParticipantScope } from '../src/platform/auth/scopes.ts';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CredentialsFile } from '../src/accounts/credentials.ts';
import type { OperatorFile } from '../src/operator/secret.ts';
import type { LedgerVerification } from '../src/platform/ledger/verify.ts';
import { startChild, type Child } from './processes.ts';
import { onCleanup } from './lifecycle.ts';
import { freshDatabase, type FreshDatabase } from './postgres.ts';
import { expectJson, type Tls } from './https-json.ts';
import type { EchoReady } from './echo-server.ts';
import type { PixdReady } from './pixd-server.ts';
import { receiverCaFile } from './receiver.ts';
import { spiGatewayFile } from '../src/platform/bootstrap.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

export type TargetId = 'echo' | 'pglite' | 'postgres';

/** pixd's PIXD_ENV. Scenarios that need the sandbox routes (POST /sandbox/pix/pay) get a sandbox pixd of their own. */
export type Environment = 'production' | 'sandbox';

/** A caller: its TLS identity and, on pixd, its bearer token and a Pix key of its account. */
export interface Party {
  tls: Required<Tls>;
  token: string;
  chave: string;
  /** Its billing token (POST /v1/authorize), for the billing family's scenarios; the echo target's is filler. */
  billingToken: string;
}

export interface Target {
  id: TargetId;
  /** pixd's environment; the echo target has none. */
  environment?: Environment;
  label: string;
  url: string;
  parties: Party[];
  /** Processes doing the work, for CPU accounting: the server child, and PostgreSQL backends if any. */
  processes(): Promise<{ server: number[]; database: number[] }>;
  /**
   * pixd only: `count` more accounts, each with an application of its own, for a scenario whose fixtures
   * (a registered webhook, a balance) must not change what the shared `parties` measure elsewhere.
   */
  addParties?(count: number, name: string): Promise<Party[]>;
  /** pixd only: the SPI gateway's identity (its client certificate from the data directory; docs/spi.md). */
  spiGateway?: Required<Tls>;
  /**
   * pixd on PostgreSQL only: another node on the same database, with a data directory of its own (it takes the
   * database's identity, so the parties' certificates and tokens work on it too); stopped when the target closes.
   */
  addNode?(): Promise<{ url: string; pid: number }>;
  /** pixd on PostgreSQL only: the name of its database (for the server's statistics). */
  databaseName?: string;
  /** pixd only: `pixd ledger verify` through the operator API, after the load (issue 11: invariants checked). */
  verifyLedger?(): Promise<LedgerVerification>;
  close(): Promise<void>;
}

export async function startEcho(): Promise<Target> {
  const child = await startChild<EchoReady>(path.join(here, 'echo-server.ts'));
  const { url, caPem, client } = child.ready;
  // The echo server ignores the token and key; they keep its requests the same size as pixd's.
  const party: Party = {
    tls: { ca: caPem, cert: client.certPem, key: client.keyPem },
    token: 'x'.repeat(600),
    billingToken: 'x'.repeat(600),
    chave: '00000000-0000-4000-8000-000000000000',
  };
  const processes = async () => ({ server: [child.pid], database: [] });
  return { id: 'echo', label: 'echo (bare node:https)', url, parties: [party], processes, close: child.stop };
}

export async function startPixd(
  database: 'pglite' | 'postgres',
  options: { applications: number; adminUrl: string; environment?: Environment },
): Promise<Target> {
  const environment = options.environment ?? 'production';
  const dataDir = temporaryDirectory();
  let postgres: FreshDatabase | undefined;
  let child: Child<PixdReady> | undefined;
  const more: { node: Child<PixdReady>; dataDir: ReturnType<typeof temporaryDirectory> }[] = [];
  const close = async () => {
    for (const { node, dataDir: dir } of more) {
      await node.stop();
      await dir.remove();
    }
    await child?.stop();
    await postgres?.drop();
    await dataDir.remove();
  };
  try {
    postgres =
      database === 'postgres'
        ? await freshDatabase(options.adminUrl, environment === 'production' ? undefined : environment)
        : undefined;
    const startNode = (dir: string) =>
      startChild<PixdReady>(path.join(here, 'pixd-server.ts'), {
        PIXD_DATA_DIR: dir,
        PIXD_ENV: environment,
        ...(postgres && { DATABASE_URL: postgres.url }),
        // The sandbox pixd registers webhooks at the bench's local receivers (scenarios/send.ts).
        ...(environment === 'sandbox' && { NODE_EXTRA_CA_CERTS: receiverCaFile() }),
      });
    child = await startNode(dataDir.path);
    const addNode = async () => {
      const dir = temporaryDirectory();
      const node = await startNode(dir.path).catch(async (error) => {
        await dir.remove();
        throw error;
      });
      more.push({ node, dataDir: dir });
      return { url: node.ready.baseUrl, pid: node.pid };
    };
    const parties = await applications(child.ready, options.applications);
    let added = 0;
    const addParties = async (count: number, name: string) => {
      const more = await newAccounts(child!.ready, count, name, added);
      added += count;
      return tokens(child!.ready, more);
    };
    const label = postgres ? `pixd + PostgreSQL ${postgres.version}` : 'pixd + PGlite (embedded)';
    const pid = child.pid;
    const db = postgres;
    const processes = async () => ({ server: [pid], database: db ? await db.backendPids() : [] });
    const ready = child.ready;
    const verifyLedger = async (): Promise<LedgerVerification> => {
      const operator = JSON.parse(fs.readFileSync(ready.operatorPath, 'utf8')) as OperatorFile;
      return expectJson(
        200,
        'ledger verify',
        `${ready.baseUrl}/operator/ledger/verify`,
        { ca: parties[0].tls.ca },
        { method: 'POST', body: {}, headers: { authorization: `Bearer ${operator.secret}` } },
      );
    };
    const gatewayPem = fs.readFileSync(spiGatewayFile(dataDir.path), 'utf8');
    return {
      id: database,
      environment,
      label,
      url: ready.baseUrl,
      parties,
      spiGateway: { ca: parties[0].tls.ca, cert: gatewayPem, key: gatewayPem },
      processes,
      addParties,
      ...(postgres && { addNode, databaseName: new URL(postgres.url).pathname.slice(1) }),
      verifyLedger,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

interface Application {
  clientId: string;
  clientSecret: string;
  tls: Required<Tls>;
  chave: string;
}

/** The demo application from credentials.json, plus more created through the operator API. */
async function applications(ready: PixdReady, count: number): Promise<Party[]> {
  const credentials = JSON.parse(fs.readFileSync(ready.credentialsPath, 'utf8')) as CredentialsFile;
  const demo: Application = {
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    tls: {
      ca: fs.readFileSync(credentials.caCertificate, 'utf8'),
      cert: fs.readFileSync(credentials.certificate.pem, 'utf8'),
      key: fs.readFileSync(credentials.certificate.key, 'utf8'),
    },
    chave: credentials.chaves[0],
  };
  return tokens(ready, [demo, ...(await newAccounts(ready, count - 1, 'Bench', 0))]);
}

/** `count` accounts through the operator API, named "<name> <n> Ltda" from n = first + 1. */
async function newAccounts(ready: PixdReady, count: number, name: string, first: number): Promise<Application[]> {
  const credentials = JSON.parse(fs.readFileSync(ready.credentialsPath, 'utf8')) as CredentialsFile;
  const operator = JSON.parse(fs.readFileSync(ready.operatorPath, 'utf8')) as OperatorFile;
  const ca = fs.readFileSync(credentials.caCertificate, 'utf8');
  const apps: Application[] = [];
  for (let i = first + 1; i <= first + count; i++) {
    const issued = await expectJson(
      201,
      'create account',
      `${ready.baseUrl}/operator/accounts`,
      { ca },
      {
        method: 'POST',
        // Every scope a non-participant account may hold: the *.ind.* ones are a participant's (issue 16).
        body: { nome: `${name} ${i} Ltda`, scopes: SCOPES.filter((s) => !isParticipantScope(s)) },
        headers: { authorization: `Bearer ${operator.secret}` },
      },
    );
    apps.push({
      clientId: issued.clientId,
      clientSecret: issued.clientSecret,
      tls: { ca, cert: issued.certificate.certPem, key: issued.certificate.keyPem },
      chave: issued.chaves[0],
    });
  }
  return apps;
}

/** Each application's bearer token (client credentials over its own certificate). */
function tokens(ready: PixdReady, apps: Application[]): Promise<Party[]> {
  return Promise.all(
    apps.map(async (app) => {
      const request = {
        method: 'POST',
        body: { grant_type: 'client_credentials' },
        headers: { authorization: 'Basic ' + Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64') },
      };
      const token = await expectJson(200, 'token', `${ready.baseUrl}/oauth/token`, app.tls, request);
      const billing = await expectJson(200, 'billing token', `${ready.baseUrl}/v1/authorize`, app.tls, request);
      return {
        tls: app.tls,
        token: token.access_token as string,
        chave: app.chave,
        billingToken: billing.access_token as string,
      };
    }),
  );
}

/** The pixd child's data directory (PGlite files, certificates), removed when the target closes. */
function temporaryDirectory(): { path: string; remove(): Promise<void> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-bench-'));
  const remove = async () => fs.rmSync(dir, { recursive: true, force: true });
  const forget = onCleanup(remove);
  return {
    path: dir,
    async remove() {
      await remove();
      forget();
    },
  };
}
