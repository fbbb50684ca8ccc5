/** Start-up and shut-down of one node: database, migrations, identity, the app, then listen. */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { servedBaseUrl, type Config } from './config.ts';
import { openDatabase, type Database } from './platform/db/database.ts';
import { timed, type Progress } from './platform/progress.ts';
import { migrate } from './platform/db/run-migrations.ts';
import { ensureServicePki, type ServicePki } from './platform/bootstrap.ts';
import { generateKeysAhead } from './platform/pki.ts';
import { OffsetClock } from './platform/clock.ts';
import { TokenService } from './platform/auth/tokens.ts';
import { MemoryRateLimiter } from './platform/ratelimit.ts';
import { jobErrorLogger, OutboxWorker } from './platform/outbox/outbox.ts';
import { OUTBOX_CHANNEL } from './platform/outbox/jobs.ts';
import { MONEY_CHANNEL, type MoneyMovement } from './platform/logging.ts';
import { WebhookDispatcher } from './platform/webhooks/dispatcher.ts';
import type { AppContext } from './platform/context.ts';
import { ensureDemoAccount } from './accounts/demo.ts';
import { writeAccountFiles, type CredentialsFile } from './accounts/credentials.ts';
import { ensureOperatorSecret, writeOperatorFile } from './operator/secret.ts';
import { ensureServiceIdentity } from './platform/identity.ts';
import { readJsonFile, writeJsonAtomic } from './platform/state-files.ts';
import { buildApp, type BuildOptions } from './server.ts';
import { listenForPages, pagesOf } from './platform/pages.ts';
import { noSettlementConnector } from './pix/send/external.ts';
import { spiConnector } from './spi/connector.ts';
import { productionPayer } from './spi/payer.ts';
import { noBillConnector } from './billing/bills/external.ts';
import { registerJobs } from './jobs.ts';
import { ensureAttemptRetention } from './platform/webhooks/retention.ts';
import { redactedUrl } from './platform/log-redaction.ts';
import { Opened } from './platform/opened.ts';

/** How often a sandbox node re-reads the account clock offsets that another node may have moved. */
const CLOCK_SYNC_INTERVAL_MS = 1000;

export interface RunningService {
  app: FastifyInstance;
  ctx: AppContext;
  credentials: CredentialsFile;
  credentialsPath: string;
  close(): Promise<void>;
}

const NO_TEMPLATE = ' with initdb and every migration: no template for this tree (`npm run postinstall` builds it)';

/** The service's five certificates (the SPI gateway's among them) and the demo application's. */
const FIRST_START_KEYS = 6;

export async function prepareDatabase(
  config: Config,
  options: { reinitialize?: boolean; progress?: Progress } = {},
): Promise<{ db: Database; pki: ServicePki }> {
  const { progress } = options;
  fs.mkdirSync(config.dataDir, { recursive: true });
  // A data directory without credentials is a first start: its keys are made while the database opens.
  const keysAhead = fs.existsSync(path.join(config.dataDir, 'credentials.json'))
    ? undefined
    : generateKeysAhead(FIRST_START_KEYS);
  keysAhead?.catch(() => undefined);
  const db = await timed(
    progress,
    // Only --reinitialize may make a new embedded database where a service lived (platform/db/embedded-check.ts).
    () => openDatabase({ ...config, newService: options.reinitialize }),
    ({ createdCluster }) =>
      createdCluster &&
      `created the embedded database in ${config.dataDir}${createdCluster === 'with initdb' ? NO_TEMPLATE : ''}`,
  );
  try {
    await timed(
      progress,
      () => migrate(db),
      (applied) => (applied.length ? `applied ${applied.length} migration(s)` : undefined),
    );
    // Before the PKI: an empty database beside a lived-in data directory must not get a new CA.
    await ensureServiceIdentity(db, config.dataDir, options);
    await keysAhead;
    const pki = await timed(
      progress,
      () => ensureServicePki(db, config),
      (ready) => (ready.issued.length ? `issued ${ready.issued.join(', ')}` : undefined),
    );
    return { db, pki };
  } catch (error) {
    await db.close();
    throw error;
  }
}

export interface StartOptions extends BuildOptions {
  /** The service clock (tests inject one whose service-wide offset they move). */
  clock?: OffsetClock;
  /** Wall time for rate-limit windows (tests freeze it). */
  wallClockMs?: () => number;
  /** `pixd start --reinitialize`: the data directory forgets the service it belonged to. */
  reinitialize?: boolean;
  /** Told each slow step that did work (`pixd start` prints them). */
  progress?: Progress;
}

export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  // Each step below adds what it opened; a step that fails closes all of it again, last opened first.
  const opened = new Opened();
  try {
    return await openService(config, options, opened);
  } catch (error) {
    throw await opened.undo(error);
  }
}

async function openService(config: Config, options: StartOptions, opened: Opened): Promise<RunningService> {
  const { db, pki } = await prepareDatabase(config, options);
  opened.add('the database', () => db.close());
  const clock = options.clock ?? new OffsetClock();
  // Production loads no offsets: every account's clock is wall time there.
  if (config.environment === 'sandbox') {
    const { loadAccountClocks } = await import('./sandbox/clock.ts');
    await loadAccountClocks(db, clock);
    const clockSync = setInterval(() => loadAccountClocks(db, clock).catch(() => undefined), CLOCK_SYNC_INTERVAL_MS);
    clockSync.unref();
    opened.add('the clock sync', () => clearInterval(clockSync));
  }
  // The limiter exists before the app (and its logger) does; its news is logged once the app is built.
  let rateLimiterLog: ((event: { degraded: boolean; error?: unknown }) => void) | undefined;
  const redisLimiter = config.redisUrl
    ? new (await import('./platform/ratelimit-redis.ts')).RedisRateLimiter(config.redisUrl, {
        wallMs: options.wallClockMs,
        nodes: config.nodes,
        onStoreChange: (event) => rateLimiterLog?.(event),
      })
    : undefined;
  const base: Omit<AppContext, 'webhooks'> = {
    config,
    db,
    clock,
    pki,
    tokens: new TokenService(pki.tokenSigningKey, options.wallClockMs),
    rateLimiter: redisLimiter ?? new MemoryRateLimiter(options.wallClockMs),
    outbox: new OutboxWorker(db, clock),
    chargeCreatedHooks: [],
    externalInstitution: config.spiGateway ? spiConnector : noSettlementConnector,
    payerInstitution: productionPayer,
    billInstitution: noBillConnector,
    pages: pagesOf(config),
    sftp: {},
  };
  opened.add('the rate limiter', () => base.rateLimiter.close());
  // After the HTTP side drained (closed after the app): jobs enqueued by the last requests stay in the outbox
  // for any node. Stopping a worker that never started is a no-op.
  opened.add('the outbox worker', () => base.outbox.stop());
  // Extensions first: the webhook lanes and the handlers registerJobs builds take what they install (the
  // simulated institution, the faults on demand).
  if (config.environment === 'sandbox') {
    const { installSandbox } = await import('./sandbox/extension.ts');
    installSandbox(base);
  }
  const ctx: AppContext = { ...base, webhooks: new WebhookDispatcher(base) };
  registerJobs(ctx);
  // A commit that enqueued jobs wakes the workers (the webhook lanes through the main worker's listeners).
  db.subscribe(OUTBOX_CHANNEL, (topic) => ctx.outbox.wake(topic));
  const { credentials, credentialsPath } = await timed(
    options.progress,
    () => ensureDemoCredentials(ctx),
    (demo) => (demo.created ? `created the demo account (${demo.credentialsPath})` : undefined),
  );
  const operator = await ensureOperatorSecret(db, config);
  const app = await buildApp(ctx, { logger: options.logger });
  // Closing the app drains its requests and closes its listener; its onClose hook stops the webhook lanes.
  opened.add('the HTTPS server', () => app.close());
  // The webhook lanes run while the app does: started when it is ready, stopped (calls in flight aborted
  // and rescheduled for any node) when it closes, before the main worker and the database.
  app.addHook('onReady', async () => ctx.webhooks.start(app.log));
  app.addHook('onClose', async () => ctx.webhooks.stop());
  ctx.outbox.setErrorLogger(jobErrorLogger(app.log, 'outbox job failed'));
  // The SMTP URL holds the server's password: the log names the server, never the login.
  if (config.smtpUrl) app.log.info({ smtp: redactedUrl(config.smtpUrl) }, 'billing e-mails are sent through SMTP');
  db.subscribe(MONEY_CHANNEL, (movement) => app.log.info(JSON.parse(movement ?? '{}') as MoneyMovement, 'money moved'));
  await redisLimiter?.connected();
  rateLimiterLog = ({ degraded, error }) =>
    degraded
      ? app.log.warn({ err: error }, 'redis out of reach: rate limits are per node until it answers again')
      : app.log.info('redis answers again: rate limits are shared across nodes');
  await app.listen({ port: config.port, host: config.host });
  opened.add('the pages listener', await listenForPages(app, ctx.pages, config, pki));
  if (config.sftpPort !== undefined) {
    const { listenForSftp } = await import('./billing/statements/sftp.ts');
    const sftp = await listenForSftp(
      db,
      { host: config.host, port: config.sftpPort, hostKeyPath: config.sftpHostKey },
      app.log,
    );
    opened.add('the SFTP server', () => sftp.close());
    ctx.sftp.address = sftp.address;
  }
  await ensureAttemptRetention(db, clock.now());
  ctx.outbox.start();
  writeOperatorFile(config.dataDir, operator);
  return {
    app,
    ctx,
    credentials: servedCredentials(credentials, credentialsPath, config, (app.server.address() as AddressInfo).port),
    credentialsPath,
    close: () => opened.closeAll(),
  };
}

/** credentials.json names the address this start actually serves (a restart may be on another port). */
function servedCredentials(
  credentials: CredentialsFile,
  credentialsPath: string,
  config: Config,
  port: number,
): CredentialsFile {
  const baseUrl = servedBaseUrl(config, port);
  if (credentials.baseUrl === baseUrl) return credentials;
  const served = { ...credentials, baseUrl };
  writeJsonAtomic(credentialsPath, served);
  return served;
}

/**
 * A data directory without credentials.json gets the demo account's (created by the first node of the
 * database, accounts/demo.ts); later starts reuse the file as it is.
 */
async function ensureDemoCredentials(
  ctx: AppContext,
): Promise<{ credentials: CredentialsFile; credentialsPath: string; created: boolean }> {
  const credentialsPath = path.join(ctx.config.dataDir, 'credentials.json');
  const existing = readJsonFile<CredentialsFile>(credentialsPath);
  if (existing) return { credentials: existing, credentialsPath, created: false };
  const { issued, created } = await ensureDemoAccount(ctx.db, ctx.pki, ctx.clock);
  const credentials = writeAccountFiles(ctx.config, issued, ctx.pki.files);
  writeJsonAtomic(credentialsPath, credentials);
  return { credentials, credentialsPath, created };
}

export function startupSummary(service: RunningService): string {
  const c = service.credentials;
  return [
    `pixd ${service.ctx.config.environment} listening on ${c.baseUrl} (database: ${service.ctx.db.kind})`,
    `credentials: ${service.credentialsPath}`,
    // The client secret is read from the file when the command runs: printed, it would land in every log.
    `try it (needs curl and jq; the client secret stays in ${path.basename(service.credentialsPath)}):`,
    `  curl --cacert ${c.caCertificate} --cert ${c.certificate.pem} --key ${c.certificate.key} \\`,
    `    -u "${c.clientId}:$(jq -r .clientSecret ${service.credentialsPath})" -H 'Content-Type: application/json' \\`,
    `    -d '{"grant_type":"client_credentials"}' ${c.baseUrl}/oauth/token`,
    `API reference: ${c.baseUrl}/docs`,
    `console (open in a browser; no client certificate asked): ${service.ctx.pages.url}/console`,
    `pages (checkout, QR codes) on the same listener: ${service.ctx.pages.url}`,
    ...(service.ctx.sftp.address
      ? [`statement files over SFTP: port ${service.ctx.sftp.address.port} (docs/statements.md)`]
      : []),
  ].join('\n');
}
