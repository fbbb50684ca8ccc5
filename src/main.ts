/** The `pixd` command: start | migrate | account create | schedule create | ledger verify. */
import fs from 'node:fs';
import https from 'node:https';
import { ConfigError, loadConfig, settingsFrom, type Config } from './config.ts';
import { migrate } from './platform/db/migrate.ts';
import { openDatabase } from './platform/db/database.ts';
import { DataDirInUse } from './platform/db/data-dir-lock.ts';
import { IdentityMismatch } from './platform/identity.ts';
import { DamagedStateFile, readJsonFile } from './platform/state-files.ts';
import { LIMITS } from './platform/limits.ts';
import { OffsetClock } from './platform/clock.ts';
import { createAccount, type IssuedAccount, type NewAccountInput } from './accounts/service.ts';
import { writeAccountFiles } from './accounts/credentials.ts';
import { operatorFilePath, type OperatorFile } from './operator/secret.ts';
import { prepareDatabase, startService, startupSummary } from './runtime.ts';
import {
  SCHEDULE_USAGE,
  ScheduleCliError,
  createScheduleOffline,
  describeSchedule,
  parseScheduleFlags,
} from './pix/schedules/cli.ts';
import type { ScheduleView } from './pix/schedules/schemas.ts';
import type { CredentialsFile } from './accounts/credentials.ts';
import type { ServicePki } from './platform/bootstrap.ts';
import { describeVerification, verifyLedger, type LedgerVerification } from './platform/ledger/verify.ts';

const USAGE = `usage: pixd <command> [settings]
  start [--reinitialize]                  start the service (default); --reinitialize lets a data directory
                                          whose database is gone start over as a new service
  migrate                                 apply database migrations and exit
  account create [--nome N] [--documento D] [--scopes a,b] [--json]
                                          create an account with its application and certificate
  ${SCHEDULE_USAGE}
  ledger verify [--json]                  recompute every posted total and the journal's sum from the
                                          journal lines; exits 2 when they disagree
settings (flags or environment): --port PORT, --host HOST, --data-dir PIXD_DATA_DIR, --env PIXD_ENV,
  --public-url PIXD_PUBLIC_URL, --database-url DATABASE_URL, --redis-url REDIS_URL`;

export async function main(argv: string[]): Promise<void> {
  try {
    const { settings, rest } = settingsFrom(argv, process.env);
    const config = loadConfig(settings);
    const [command = 'start', sub, ...args] = rest;
    if (command === 'start') return await start(config, { reinitialize: sub === '--reinitialize' });
    if (command === 'migrate') return await runMigrate(config);
    if (command === 'account' && sub === 'create') return await accountCreate(config, args);
    if (command === 'schedule' && sub === 'create') return await scheduleCreate(config, args);
    if (command === 'ledger' && sub === 'verify') return await ledgerVerify(config, args);
    fail(`unknown command "${[command, sub].filter(Boolean).join(' ')}"\n${USAGE}`);
  } catch (error) {
    fail(
      error instanceof ConfigError ||
        error instanceof CliError ||
        error instanceof ScheduleCliError ||
        error instanceof DataDirInUse ||
        error instanceof IdentityMismatch ||
        error instanceof DamagedStateFile
        ? error.message
        : ((error as Error).stack ?? String(error)),
    );
  }
}

class CliError extends Error {}

function fail(message: string): never {
  process.stderr.write(`pixd: ${message}\n`);
  process.exit(1);
}

async function start(config: Config, options: { reinitialize: boolean }): Promise<void> {
  const service = await startService(config, options);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, 'draining in-flight requests');
    // Fastify's close waits for in-flight requests; the timer only guards against one that never ends.
    const deadline = setTimeout(() => process.exit(1), LIMITS.shutdownGraceMs).unref();
    await service.close();
    clearTimeout(deadline);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Printed last: whoever waits for this line may signal us at once.
  process.stdout.write(startupSummary(service) + '\n');
}

async function runMigrate(config: Config): Promise<void> {
  const db = await openDatabase(config);
  try {
    const applied = await migrate(db);
    process.stdout.write(
      applied.length
        ? `applied ${applied.map((m) => `${m.version}_${m.name}`).join(', ')}\n`
        : 'database is up to date\n',
    );
  } finally {
    await db.close();
  }
}

function parseAccountFlags(args: string[]): { input: NewAccountInput; json: boolean } {
  const input: NewAccountInput = {};
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new CliError(`${flag} needs a value`);
      return v;
    };
    if (flag === '--json') json = true;
    else if (flag === '--nome') input.nome = value();
    else if (flag === '--documento') input.documento = value();
    else if (flag === '--scopes')
      input.scopes = value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else throw new CliError(`unknown flag "${flag}" for account create\n${USAGE}`);
  }
  return { input, json };
}

async function accountCreate(config: Config, args: string[]): Promise<void> {
  const { input, json } = parseAccountFlags(args);
  const viaServer = await throughOperatorApi<IssuedAccount>(config, '/operator/accounts', input);
  let issued: IssuedAccount;
  let publicFiles: ServicePki['files'];
  if (viaServer) {
    issued = viaServer;
    publicFiles = {
      caCertificate: `${config.dataDir}/ca.pem`,
      webhookCertificateChain: `${config.dataDir}/webhook-client-chain.pem`,
    };
  } else {
    // No server is running on this data directory: the database is ours to open.
    const { db, pki } = await prepareDatabase(config);
    try {
      issued = await createAccount(db, pki, new OffsetClock(), input);
    } finally {
      await db.close();
    }
    publicFiles = pki.files;
  }
  const credentials = writeAccountFiles(config, issued, publicFiles);
  process.stdout.write(
    json
      ? JSON.stringify(credentials, null, 2) + '\n'
      : `created account ${credentials.account.conta} (${credentials.account.nome}), client ${credentials.clientId}\ncertificate: ${credentials.certificate.p12}\n`,
  );
}

/** Schedules a Pix (the interface only reads them): through the running server, else on the database directly. */
async function scheduleCreate(config: Config, args: string[]): Promise<void> {
  const { conta: given, body, json } = parseScheduleFlags(args);
  const conta = given ?? demoConta(config);
  let view = await throughOperatorApi<ScheduleView>(config, '/operator/schedules', { conta, ...body });
  if (!view) {
    const { db } = await prepareDatabase(config);
    try {
      // The account's sandbox clock may have been moved: "now" must be the account's, as a running node would see it.
      const clock = new OffsetClock();
      if (config.environment === 'sandbox') await (await import('./sandbox/clock.ts')).loadAccountClocks(db, clock);
      view = await createScheduleOffline(db, clock, conta, body);
    } finally {
      await db.close();
    }
  }
  process.stdout.write(json ? JSON.stringify(view, null, 2) + '\n' : describeSchedule(view) + '\n');
}

/** Through the running server, else on the database directly; exit status 2 when the ledger is not sound. */
async function ledgerVerify(config: Config, args: string[]): Promise<void> {
  const unknown = args.find((a) => a !== '--json');
  if (unknown) throw new CliError(`unknown flag "${unknown}" for ledger verify\n${USAGE}`);
  let verification = await throughOperatorApi<LedgerVerification>(config, '/operator/ledger/verify', {});
  if (!verification) {
    const db = await openDatabase(config);
    try {
      verification = await verifyLedger(db);
    } finally {
      await db.close();
    }
  }
  process.stdout.write(
    args.includes('--json') ? JSON.stringify(verification, null, 2) + '\n' : describeVerification(verification) + '\n',
  );
  if (!verification.ok) process.exitCode = 2;
}

function demoConta(config: Config): string {
  const file = `${config.dataDir}/credentials.json`;
  if (!fs.existsSync(file)) throw new CliError(`--conta is needed: no ${file} to take the demo account from`);
  return readJsonFile<CredentialsFile>(file)!.account.conta;
}

/** POSTs to the operator API; undefined when no server answers on the operator address (then the CLI opens the database). */
async function throughOperatorApi<T>(config: Config, path: string, input: unknown): Promise<T | undefined> {
  const file = operatorFilePath(config.dataDir);
  if (!fs.existsSync(file)) return undefined;
  const operator = readJsonFile<OperatorFile>(file)!;
  const ca = fs.readFileSync(`${config.dataDir}/ca.pem`);
  const body = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const request = https.request(
      `${operator.url}${path}`,
      {
        method: 'POST',
        ca,
        headers: {
          authorization: `Bearer ${operator.secret}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => {
          const parsed = text ? JSON.parse(text) : {};
          if (response.statusCode === 200 || response.statusCode === 201) resolve(parsed as T);
          else reject(new CliError(`server refused: ${parsed.mensagem ?? text}`));
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' ? resolve(undefined) : reject(error),
    );
    request.end(body);
  });
}
