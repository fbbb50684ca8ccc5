/** What each `pixd` command does once its flags are parsed (src/cli/program.ts declares them). */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { migrate } from '../platform/db/run-migrations.ts';
import { openDatabase, type Database } from '../platform/db/database.ts';
import { chooseServerFootprint } from '../platform/process-footprint.ts';
import { readJsonFile, writeJsonAtomic } from '../platform/state-files.ts';
import { LIMITS } from '../platform/limits.ts';
import { OffsetClock } from '../platform/clock.ts';
import { createAccount, type IssuedAccount, type NewAccountInput } from '../accounts/service.ts';
import { writeAccountFiles, type CredentialsFile } from '../accounts/credentials.ts';
import { prepareDatabase, startService, startupSummary, type RunningService } from '../runtime.ts';
import { createScheduleOffline, describeSchedule } from '../pix/schedules/cli.ts';
import type { ScheduleCommand } from '../pix/schedules/cli-flags.ts';
import type { ScheduleView } from '../pix/schedules/schemas.ts';
import type { ServicePki } from '../platform/bootstrap.ts';
import { describeVerification, verifyLedger, type LedgerVerification } from '../platform/ledger/verify.ts';
import { CliError, throughOperatorApi } from './operator-client.ts';
import {
  ConsoleUserInputError,
  consoleUsers,
  createConsoleUser,
  removeConsoleUser,
  rotateConsoleUserSecret,
  updateConsoleUser,
  type IssuedConsoleUser,
  type ListedConsoleUser,
  type NewConsoleUser,
} from '../console/users/service.ts';
import { assertPortFree, explainStartFailure, printProgress } from './startup.ts';

export async function start(config: Config, options: { reinitialize: boolean }): Promise<void> {
  chooseServerFootprint(config.databaseUrl ? 'postgres' : 'embedded');
  await assertPortFree(config);
  let service: RunningService;
  try {
    service = await startService(config, { ...options, progress: printProgress });
  } catch (error) {
    throw explainStartFailure(error, config) ?? error;
  }
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

export async function runMigrate(config: Config): Promise<void> {
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

/** The account's credentials file, beside the demo account's credentials.json; only its owner may read it. */
export const accountCredentialsPath = (dataDir: string, conta: string) =>
  path.join(dataDir, `credentials-${conta}.json`);

export async function accountCreate(config: Config, input: NewAccountInput, json: boolean): Promise<void> {
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
      issued = await createAccount(db, pki, new OffsetClock(), input, config.environment);
    } finally {
      await db.close();
    }
    publicFiles = pki.files;
  }
  const credentials = { ...writeAccountFiles(config, issued, publicFiles), baseUrl: servedBaseUrl(config) };
  const file = accountCredentialsPath(config.dataDir, credentials.account.conta);
  writeJsonAtomic(file, credentials);
  process.stdout.write(json ? JSON.stringify(credentials, null, 2) + '\n' : describeAccount(credentials, file) + '\n');
}

/**
 * The address clients should call: the demo credentials.json records what the running server answered on
 * (a server started with PORT=0 listens on a port only it knows); with no server, the configured one.
 */
function servedBaseUrl(config: Config): string {
  const demo = readJsonFile<CredentialsFile>(path.join(config.dataDir, 'credentials.json'));
  return demo?.baseUrl ?? config.publicUrl;
}

function describeAccount(c: CredentialsFile, file: string): string {
  return [
    `created account ${c.account.conta} (${c.account.nome}, ${c.account.documento})`,
    ...(c.account.ispb ? [`  participant ISPB: ${c.account.ispb}`] : []),
    `  client id:      ${c.clientId}`,
    `  client secret:  ${c.clientSecret}`,
    `                  shown once: store it now (it is also in ${file}, readable only by you)`,
    `  certificate:    ${c.certificate.pem}`,
    `  private key:    ${c.certificate.key}`,
    `  PKCS#12:        ${c.certificate.p12}`,
    `  CA certificate: ${c.caCertificate}`,
    `  keys (chaves):  ${c.chaves.join(', ') || '(none)'}`,
    `  base URL:       ${c.baseUrl}`,
    `credentials file: ${file}`,
  ].join('\n');
}

/** Schedules a Pix (the interface only reads them): through the running server, else on the database directly. */
export async function scheduleCreate(config: Config, command: ScheduleCommand, json: boolean): Promise<void> {
  const conta = command.conta ?? demoConta(config);
  let view = await throughOperatorApi<ScheduleView>(config, '/operator/schedules', { conta, ...command.body });
  if (!view) {
    const { db } = await prepareDatabase(config);
    try {
      // The account's sandbox clock may have been moved: "now" must be the account's, as a running node would see it.
      const clock = new OffsetClock();
      if (config.environment === 'sandbox') await (await import('../sandbox/clock.ts')).loadAccountClocks(db, clock);
      view = await createScheduleOffline(db, clock, conta, command.body);
    } finally {
      await db.close();
    }
  }
  process.stdout.write(json ? JSON.stringify(view, null, 2) + '\n' : describeSchedule(view) + '\n');
}

/** A person who may use the console (docs/console.md): through the running server, else on the database directly. */
export async function consoleUserCreate(config: Config, input: NewConsoleUser, json: boolean): Promise<void> {
  let issued = await throughOperatorApi<IssuedConsoleUser>(config, '/operator/console-users', input);
  if (!issued) issued = await offlineConsoleUser(config, (db) => createConsoleUser(db, new Date(), input));
  process.stdout.write(
    json
      ? `${JSON.stringify(issued, null, 2)}\n`
      : [
          `created console user ${issued.name} (${issued.role}) for account(s) ${issued.contas.join(', ')}`,
          `  secret: ${issued.secret}`,
          '  (shown this once; sign in at /console with the name and this secret)',
        ].join('\n') + '\n',
  );
}

export async function consoleUserRemove(config: Config, name: string): Promise<void> {
  let removed = await throughOperatorApi<{ name: string }>(config, '/operator/console-users/remove', { name });
  if (!removed) removed = await offlineConsoleUser(config, (db) => removeConsoleUser(db, name));
  process.stdout.write(`removed console user ${removed.name}\n`);
}

export async function consoleUserUpdate(
  config: Config,
  input: { name: string; role?: string; contas?: string[] },
  json: boolean,
): Promise<void> {
  let user = await throughOperatorApi<ListedConsoleUser>(config, '/operator/console-users/update', input);
  if (!user) user = await offlineConsoleUser(config, (db) => updateConsoleUser(db, input));
  process.stdout.write(
    json
      ? `${JSON.stringify(user, null, 2)}\n`
      : `console user ${user.name} is now ${user.role} for account(s) ${user.contas.join(', ')}; their open sessions are refused from their next request\n`,
  );
}

export async function consoleUserRotateSecret(config: Config, name: string, json: boolean): Promise<void> {
  const path = '/operator/console-users/rotate-secret';
  let rotated = await throughOperatorApi<{ name: string; secret: string }>(config, path, { name });
  if (!rotated) rotated = await offlineConsoleUser(config, (db) => rotateConsoleUserSecret(db, name));
  process.stdout.write(
    json
      ? `${JSON.stringify(rotated, null, 2)}\n`
      : [
          `new secret for console user ${rotated.name}: their open sessions are refused from their next request`,
          `  secret: ${rotated.secret}`,
          '  (shown this once; the old secret no longer signs in)',
        ].join('\n') + '\n',
  );
}

export async function consoleUserList(config: Config, json: boolean): Promise<void> {
  let listed = await throughOperatorApi<{ users: ListedConsoleUser[] }>(config, '/operator/console-users/list', {});
  if (!listed) listed = await offlineConsoleUser(config, (db) => consoleUsers(db));
  if (json) return void process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
  if (!listed.users.length)
    return void process.stdout.write(
      'no console users yet (pixd console-user create --name N --role R --contas a,b)\n',
    );
  const rows = [
    ['NAME', 'ROLE', 'CREATED (UTC)', 'ACCOUNTS (conta)'],
    ...listed.users.map((u) => [u.name, u.role, `${u.createdAt.slice(0, 16).replace('T', ' ')}`, u.contas.join(', ')]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((r) => r[column].length)));
  process.stdout.write(
    rows
      .map((r) =>
        r
          .map((cell, column) => cell.padEnd(widths[column]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n',
  );
}

/** No server runs on this data directory: the database is ours to open; a refusal is one line. */
async function offlineConsoleUser<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
  const { db } = await prepareDatabase(config);
  try {
    return await work(db);
  } catch (error) {
    if (error instanceof ConsoleUserInputError) throw new CliError(error.message);
    throw error;
  } finally {
    await db.close();
  }
}

/** Through the running server, else on the database directly; exit status 2 when the ledger is not sound. */
export async function ledgerVerify(config: Config, json: boolean): Promise<void> {
  let verification = await throughOperatorApi<LedgerVerification>(config, '/operator/ledger/verify', {});
  if (!verification) {
    const db = await openDatabase(config);
    try {
      verification = await verifyLedger(db);
    } finally {
      await db.close();
    }
  }
  process.stdout.write(json ? JSON.stringify(verification, null, 2) + '\n' : describeVerification(verification) + '\n');
  if (!verification.ok) process.exitCode = 2;
}

function demoConta(config: Config): string {
  const file = `${config.dataDir}/credentials.json`;
  if (!fs.existsSync(file)) throw new CliError(`--conta is needed: no ${file} to take the demo account from`);
  return readJsonFile<CredentialsFile>(file)!.account.conta;
}
