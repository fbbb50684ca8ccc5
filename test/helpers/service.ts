/**
 * Starts a real pixd node for a test file: HTTPS on a free port, its own data directory, and either PGlite
 * (default) or its own database on the PostgreSQL server named by DATABASE_URL. Both are copies of a
 * template that went through a first start once (src/testing/template.ts), unless the test asks for
 * fresh data or start-up settings the template was not made with. The clock is injected so tests move
 * time without waiting.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.ts';
import { OffsetClock } from '../../src/platform/clock.ts';
import { createAccount, type NewAccountInput } from '../../src/accounts/service.ts';
import { SCOPES, isParticipantScope } from '../../src/platform/auth/scopes.ts';
import { startService, type RunningService, type StartOptions } from '../../src/runtime.ts';
import { HttpsClient, type Identity } from './https-client.ts';
import { seededData } from '../../src/testing/template.ts';
import { REQUEST_EXAMPLES } from '../../src/platform/openapi-examples.ts';
import { freePort } from '../../src/testing/ports.ts';

export { freePort };

/** A fresh database per test file on the PostgreSQL server, dropped afterwards. */
export async function freshPostgres(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pixd_test_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface Party {
  clientId: string;
  clientSecret: string;
  identity: Identity;
  chaves: string[];
  accountId: number;
  payeeCode: string;
  /** Client presenting this party's certificate. */
  http: HttpsClient;
  token(): Promise<string>;
}

export interface TestService {
  config: Config;
  service: RunningService;
  clock: OffsetClock;
  baseUrl: string;
  caPem: string;
  /** Client with no certificate (payers' institutions, billing, unauthenticated probes). */
  anonymous: HttpsClient;
  demo: Party;
  newParty(input?: NewAccountInput): Promise<Party>;
  /**
   * Moves the whole service's time (the injected clock): every account's clock moves with it, as the one
   * service-wide sandbox clock used to. Per-account moves go through `POST /sandbox/clock/advance`.
   */
  advance(seconds: number): void;
  /** `keepData`: leave the data directory and database for a restart (see `StartTestOptions.reuse`). */
  close(options?: { keepData?: boolean }): Promise<void>;
  /** What a restart on the same data needs. */
  data: ReusableData;
}

/** The data directory and the database (PostgreSQL URL, or undefined for the PGlite inside dataDir) of a service. */
export interface ReusableData {
  dataDir: string;
  databaseUrl?: string;
  /** Drops the database and removes the directory; owned by whoever started the first service. */
  discard(): Promise<void>;
}

export interface StartTestOptions {
  wallClockMs?: () => number;
  /** Fastify's logger (none by default). */
  logger?: StartOptions['logger'];
  /** Start on the data of a service closed with `keepData` (a restart), instead of fresh data. */
  reuse?: ReusableData;
  /** `pixd start --reinitialize`. */
  reinitialize?: boolean;
}

export async function startTestService(
  settings: Record<string, string> = {},
  options: StartTestOptions = {},
): Promise<TestService> {
  const port = settings.PORT ?? String(await freePort());
  const adminUrl = 'DATABASE_URL' in settings ? undefined : process.env.DATABASE_URL || undefined;
  // The template was made with the default start-up settings: another environment, host, public address or
  // a database of the test's own gets a first start of its own.
  const seeded =
    !options.reuse &&
    !settings.DATABASE_URL &&
    !['PIXD_ENV', 'HOST', 'PIXD_PUBLIC_URL'].some((name) => name in settings);
  let data: ReusableData;
  if (options.reuse) data = options.reuse;
  else if (seeded) data = await seededData(`https://127.0.0.1:${port}`, { adminUrl });
  else {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-test-'));
    const postgres = adminUrl ? await freshPostgres(adminUrl) : undefined;
    data = {
      dataDir,
      databaseUrl: postgres?.url,
      async discard() {
        await postgres?.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const config = loadConfig({
    PIXD_DATA_DIR: data.dataDir,
    PORT: port,
    // A free port of its own: PORT + 1 may be taken on a busy machine.
    PIXD_PAGES_PORT: '0',
    PIXD_ENV: 'sandbox',
    LOG_LEVEL: 'silent',
    ...(data.databaseUrl && { DATABASE_URL: data.databaseUrl }),
    ...settings,
  });
  const clock = new OffsetClock();
  const service = await startService(config, {
    clock,
    logger: options.logger ?? false,
    wallClockMs: options.wallClockMs,
    reinitialize: options.reinitialize,
  });
  const caPem = fs.readFileSync(service.credentials.caCertificate, 'utf8');
  const baseUrl = service.credentials.baseUrl;
  const clients: HttpsClient[] = [];

  const party = (c: {
    clientId: string;
    clientSecret: string;
    identity: Identity;
    chaves: string[];
    accountId: number;
    payeeCode: string;
  }): Party => {
    const http = new HttpsClient(baseUrl, caPem, c.identity);
    clients.push(http);
    let cached: string | undefined;
    return {
      ...c,
      http,
      async token() {
        if (cached) return cached;
        const res = await http.request('POST', '/oauth/token', {
          body: { grant_type: 'client_credentials' },
          headers: { authorization: 'Basic ' + Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64') },
        });
        if (res.status !== 200) throw new Error(`token failed: ${res.status} ${res.text}`);
        cached = res.body.access_token as string;
        return cached;
      },
    };
  };

  const creds = service.credentials;
  const demoAccount = await service.ctx.db.query<{ id: number }>(
    'select account_id as id from applications where client_id = $1',
    [creds.clientId],
  );
  const demo = party({
    clientId: creds.clientId,
    clientSecret: creds.clientSecret,
    identity: {
      certPem: fs.readFileSync(creds.certificate.pem, 'utf8'),
      keyPem: fs.readFileSync(creds.certificate.key, 'utf8'),
    },
    chaves: creds.chaves,
    accountId: demoAccount.rows[0].id,
    payeeCode: creds.account.payeeCode,
  });
  const anonymous = new HttpsClient(baseUrl, caPem, null);
  clients.push(anonymous);

  return {
    config,
    service,
    clock,
    baseUrl,
    caPem,
    anonymous,
    demo,
    async newParty(input = {}) {
      // Test parties play the payer too: the sandbox tools are granted explicitly, as an operator would. The
      // participant scopes only to a participant (accounts/service.ts refuses them to others).
      const scopes = SCOPES.filter((s) => input.participant || !isParticipantScope(s));
      const issued = await createAccount(service.ctx.db, service.ctx.pki, clock, { scopes, ...input });
      return party({
        clientId: issued.clientId,
        clientSecret: issued.clientSecret,
        identity: { certPem: issued.certificate.certPem, keyPem: issued.certificate.keyPem },
        chaves: issued.chaves,
        accountId: issued.account.id,
        payeeCode: issued.account.payee_code,
      });
    },
    advance(seconds: number) {
      clock.setOffsetMs(clock.offset + seconds * 1000);
    },
    data,
    async close({ keepData = false } = {}) {
      for (const c of clients) c.close();
      await service.close();
      if (!keepData) await data.discard();
    },
  };
}

/** A valid charge body for the given key. */
/** The API reference's example of an immediate charge (src/platform/openapi-examples.ts), for `chave`. */
export function cobBody(chave: string, original = '123.45', extra: Record<string, unknown> = {}) {
  return { ...structuredClone(REQUEST_EXAMPLES['POST /v2/cob']), valor: { original }, chave, ...extra };
}
