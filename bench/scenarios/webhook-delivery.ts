/**
 * Webhook delivery bench: sustained Pix webhooks from pixd to a local mutual-TLS receiver, measured as
 * delivered webhooks per second and lag from the payment's commit to its receipt.
 *
 * Not an autocannon scenario (nothing here is a request/response load on pixd's API), so it runs on its
 * own: `node --import tsx bench/scenarios/webhook-delivery.ts`. pixd runs in this process on PGlite and on
 * PostgreSQL in turn (`startService`, as `pixd start` does, production environment); the receiver is a
 * child process (its own core for TLS). Two sources of events, at a fixed offered rate:
 * - `payments`: real payments through the payment engine (`receivePix`), each transaction committing its
 *   payments, ledger entries and `webhook.pix` outbox rows. Its ceiling is the payment engine's.
 * - `events`: the same `webhook.pix` outbox rows written by the engine's own `enqueuePixEvent` for
 *   synthetic received Pix, without the ledger: what the delivery side sustains when the source is not
 *   the limit.
 * - `isolation`: `events` for one tenant (D) while another tenant (C) keeps sending and C's receiver accepts
 *   TCP connections and never answers, with a backlog of C's webhooks queued first (issues 13 and 26: a
 *   slow destination may slow only itself). Goal: D's p99 < 100 ms in the bench (1 s in the test).
 * - `isolation-baseline`: the same, C's receiver answering: D's latency without a hanging neighbour.
 * Results go between the webhook markers inside the notes block of docs/performance.md, which the main
 * bench keeps when it rewrites the file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/runtime.ts';
import { receiverCa, startReceiver } from '../receiver.ts';
import { setWebhookSettings } from '../../src/platform/webhooks/settings.ts';
import { WEBHOOK_LANES, WebhookDispatcher } from '../../src/platform/webhooks/dispatcher.ts';
import { receivePix } from '../../src/pix/payments/engine.ts';
import { enqueueSyntheticPixEvent } from '../synthetic-pix.ts';
import type { Sql } from '../../src/platform/db/database.ts';
import { registerPixWebhook } from '../../src/pix/webhook/service.ts';
import { newTxid } from '../../src/platform/ids.ts';
import { createAccount } from '../../src/accounts/service.ts';
import { writeNotesSection } from '../notes-section.ts';
import { describeVerification, verifyLedger } from '../../src/platform/ledger/verify.ts';
import { SANDBOX_PAY_ORIGIN } from '../../src/sandbox/payer.ts';

const SOURCES = ['events', 'payments', 'isolation-baseline', 'isolation'] as const;
type Source = (typeof SOURCES)[number];
const isIsolation = (source: Source) => source.startsWith('isolation');
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const SETTINGS = {
  /** Offered payments (hence webhooks) per second. */
  ratePerSecond: env('BENCH_WEBHOOK_RATE', 1200),
  durationS: env('BENCH_WEBHOOK_DURATION_S', 10),
  warmupS: env('BENCH_WEBHOOK_WARMUP_S', 2),
  /** Payments per committed transaction (a busy receiving node commits several per transaction only if its source batches; 1 is the strictest). */
  paymentsPerCommit: env('BENCH_WEBHOOK_PAYMENTS_PER_COMMIT', 10),
  /** Transactions in flight at once (PGlite serialises them anyway). */
  concurrentCommits: env('BENCH_WEBHOOK_CONCURRENT_COMMITS', 4),
  /** After the offered load stops, how long deliveries may take to catch up before the run counts them lost. */
  drainTimeoutS: 30,
  targets: (process.env.BENCH_TARGETS ?? 'pglite,postgres')
    .split(',')
    .filter((t) => t === 'pglite' || t === 'postgres'),
  sources: (process.env.BENCH_WEBHOOK_SOURCES ?? 'events,payments,isolation-baseline,isolation')
    .split(',')
    .filter((t): t is Source => (SOURCES as readonly string[]).includes(t)),
  /**
   * `isolation`: the offered rate of the measured tenant (D); the other tenant's (C) backlog of webhooks queued
   * before, and the rate C keeps sending at while D is measured.
   */
  isolationRatePerSecond: env('BENCH_WEBHOOK_ISOLATION_RATE', 300),
  hangingBacklog: env('BENCH_WEBHOOK_HANGING_BACKLOG', 1000),
  hangingRatePerSecond: env('BENCH_WEBHOOK_HANGING_RATE', 100),
  isolationGoalP99Ms: 100,
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/performance.md',
};
const TICK_MS = 10;
const wallNowMs = () => performance.timeOrigin + performance.now();
const log = (line: string) => process.stderr.write(`bench webhooks: ${line}\n`);

interface Result {
  target: string;
  source: Source;
  offered: number;
  committed: number;
  delivered: number;
  duplicates: number;
  lost: number;
  deliveredPerSecond: number;
  lagMs: { p50: number; p95: number; p99: number; max: number };
  cpuPercent: number;
  /** `pixd ledger verify` once the load drained: the journal sums to zero, every posted total equals its lines. */
  ledgerOk: boolean;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** pixd runs in this process: it trusts the receivers' CA through its webhook settings. */
function trustReceivers(): void {
  setWebhookSettings({ extraCaPem: receiverCa().certPem });
}

async function freshDatabase(target: string): Promise<{ url?: string; drop(): Promise<void> }> {
  if (target === 'pglite') return { drop: async () => undefined };
  const name = `pixd_bench_webhooks_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: SETTINGS.adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const url = new URL(SETTINGS.adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** One payment (or one synthetic received Pix and its event) inside an open transaction; returns its endToEndId. */
type Make = (sql: Sql, now: Date) => Promise<string>;

function maker(source: Source, accountId: number, chave: string): Make {
  if (source === 'payments') {
    return async (sql, now) =>
      (
        await receivePix(sql, now, {
          target: { kind: 'key', chave, txid: newTxid() },
          amountCents: 1234,
          payer: { nome: 'Bench', cpf: '11144477735' },
          origin: SANDBOX_PAY_ORIGIN,
        })
      ).end_to_end_id;
  }
  return (sql, now) => enqueueSyntheticPixEvent(sql, accountId, chave, now);
}

/** Commits at the offered rate for `seconds`; records the commit time per endToEndId. Returns how many were offered. */
async function offer(
  service: RunningService,
  make: Make,
  seconds: number,
  commits: Map<string, number>,
  ratePerSecond: number,
): Promise<number> {
  const { db, clock } = service.ctx;
  const started = performance.now();
  let offered = 0;
  const inFlight = new Set<Promise<void>>();
  const commitOne = async (count: number) => {
    const ids = await db.tx(async (sql) => {
      const now = clock.now();
      const made: string[] = [];
      for (let i = 0; i < count; i++) made.push(await make(sql, now));
      return made;
    });
    const at = wallNowMs();
    for (const id of ids) commits.set(id, at);
  };
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * ratePerSecond) - offered;
    for (let left = due; left > 0 && inFlight.size < SETTINGS.concurrentCommits; ) {
      const count = Math.min(left, SETTINGS.paymentsPerCommit);
      left -= count;
      offered += count;
      const p = commitOne(count).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.all(inFlight);
  return offered;
}

/**
 * `isolation`: another tenant (C) whose receiver (registered while it still answered) accepts connections and
 * never answers, with a backlog of its webhooks committed when the measured tenant's load starts; in
 * `isolation-baseline` it keeps answering. Returns C's maker: C keeps sending while D is measured.
 */
async function otherTenant(
  service: RunningService,
  dispatcher: WebhookDispatcher,
  url: string,
  hang: (() => Promise<void>) | undefined,
): Promise<Make> {
  const { db, pki, clock, config } = service.ctx;
  const other = await createAccount(db, pki, clock, { nome: 'Bench Hanging Ltda' });
  const caller = { accountId: other.account.id, now: clock.now(), publicUrl: config.publicUrl, chargeCreated: [] };
  await registerPixWebhook({ db, transport: dispatcher.transport }, caller, other.chaves[0], `${url}/webhook`, false);
  const make = maker('events', other.account.id, other.chaves[0]);
  if (!hang) return make;
  await hang();
  for (let made = 0; made < SETTINGS.hangingBacklog; made += 50)
    await db.tx(async (sql) => {
      for (let i = 0; i < 50; i++) await make(sql, clock.now());
    });
  log(`another tenant's receiver hangs with ${SETTINGS.hangingBacklog} webhooks queued`);
  return make;
}

async function runTarget(target: string, source: Source): Promise<Result> {
  const database = await freshDatabase(target);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-bench-webhooks-'));
  const config = loadConfig({
    PIXD_DATA_DIR: dataDir,
    PORT: '0',
    PIXD_ENV: 'production',
    LOG_LEVEL: 'silent',
    // The receiver is on loopback, which production refuses unless allowed (docs/security.md).
    PIXD_WEBHOOK_ALLOW: '127.0.0.0/8',
    ...(database.url && { DATABASE_URL: database.url }),
  });
  const service = await startService(config, { logger: false });
  trustReceivers();
  const receiver = await startReceiver(service.ctx.pki.ca.certPem);
  const other = isIsolation(source) ? await startReceiver(service.ctx.pki.ca.certPem) : undefined;
  try {
    const { rows } = await service.ctx.db.query<{ account_id: number }>(
      'select account_id from applications where client_id = $1',
      [service.credentials.clientId],
    );
    const chave = service.credentials.chaves[0];
    const dispatcher = service.ctx.webhooks;
    // The scenario reads the lanes' destination slots: the concrete dispatcher, not the context's interface.
    if (!(dispatcher instanceof WebhookDispatcher)) throw new Error('the service runs no WebhookDispatcher');
    const caller = {
      accountId: rows[0].account_id,
      now: service.ctx.clock.now(),
      publicUrl: config.publicUrl,
      chargeCreated: [],
    };
    await registerPixWebhook(
      { db: service.ctx.db, transport: dispatcher.transport },
      caller,
      chave,
      `${receiver.url}/webhook`,
      false,
    );

    const makeOther =
      other && (await otherTenant(service, dispatcher, other.url, source === 'isolation' ? other.hang : undefined));
    const make = maker(source === 'payments' ? 'payments' : 'events', rows[0].account_id, chave);
    const rate = isIsolation(source) ? SETTINGS.isolationRatePerSecond : SETTINGS.ratePerSecond;
    // C sends at its own rate beside D's load, its commits not measured.
    const offerBeside = (seconds: number) =>
      makeOther ? offer(service, makeOther, seconds, new Map(), SETTINGS.hangingRatePerSecond) : undefined;
    const otherWarmup = offerBeside(SETTINGS.warmupS);
    await offer(service, make, SETTINGS.warmupS, new Map(), rate);
    await otherWarmup;
    await new Promise((resolve) => setTimeout(resolve, 2000));

    const commits = new Map<string, number>();
    const cpuBefore = process.cpuUsage();
    const started = wallNowMs();
    const otherLoad = offerBeside(SETTINGS.durationS);
    const offered = await offer(service, make, SETTINGS.durationS, commits, rate);
    await otherLoad;
    const loadEnded = wallNowMs();
    const deadline = Date.now() + SETTINGS.drainTimeoutS * 1000;
    let report = await receiver.report();
    // The receiver answers once per request; ask again until every committed payment arrived or time is up.
    while ([...commits.keys()].some((id) => !report.receipts[id]) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      report = await receiver.report();
    }
    const cpu = process.cpuUsage(cpuBefore);
    const lags: number[] = [];
    let duplicates = 0;
    let inWindow = 0;
    for (const [id, committedAt] of commits) {
      const times = report.receipts[id];
      if (!times) continue;
      duplicates += times.length - 1;
      lags.push(times[0] - committedAt);
      if (times[0] <= loadEnded) inWindow++;
    }
    lags.sort((a, b) => a - b);
    const ledger = await verifyLedger(service.ctx.db);
    if (!ledger.ok) log(`ledger after ${source} on ${target}: ${describeVerification(ledger)}`);
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      target: service.ctx.db.kind === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded)',
      source,
      offered,
      committed: commits.size,
      delivered: lags.length,
      duplicates,
      lost: commits.size - lags.length,
      deliveredPerSecond: Math.round(inWindow / ((loadEnded - started) / 1000)),
      lagMs: {
        p50: round(percentile(lags, 50)),
        p95: round(percentile(lags, 95)),
        p99: round(percentile(lags, 99)),
        max: round(lags.at(-1) ?? NaN),
      },
      cpuPercent: Math.round(((cpu.user + cpu.system) / 1000 / (wallNowMs() - started)) * 100),
      ledgerOk: ledger.ok,
    };
  } finally {
    receiver.kill();
    other?.kill();
    await service.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const TABLE = [
  '| Database | source | offered | delivered/s | lag p50 ms | p95 ms | p99 ms | max ms | lost | duplicates | pixd CPU (of one core) | ledger verify |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
];
const row = (r: Result) =>
  `| ${r.target} | ${r.source} | ${r.offered.toLocaleString('en')} | ${r.deliveredPerSecond.toLocaleString('en')} | ${r.lagMs.p50} | ${r.lagMs.p95} | ${r.lagMs.p99} | ${r.lagMs.max} | ${r.lost} | ${r.duplicates} | ${r.cpuPercent} % | ${r.ledgerOk ? 'ok' : '**drift**'} |`;
const measuredBy = () =>
  `Measured by \`node --import tsx bench/scenarios/webhook-delivery.ts\` on ${new Date().toISOString()} (${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} at the end).`;

function throughputReport(results: Result[]): string {
  return [
    '### Webhook delivery',
    '',
    measuredBy(),
    `Offered ${SETTINGS.ratePerSecond}/s for ${SETTINGS.durationS} s (after ${SETTINGS.warmupS} s of warm-up), ${SETTINGS.paymentsPerCommit} per committed transaction, up to ${SETTINGS.concurrentCommits} transactions at once;`,
    'one key with a registered webhook (handshake passed) to a local mutual-TLS receiver in a child process. Source `payments`: real payments through the',
    "payment engine (payment, ledger entry and `webhook.pix` outbox row in one transaction), so its ceiling is the engine's; `events`: the same outbox rows",
    "written by the engine's `enqueuePixEvent` for synthetic received Pix, without the ledger, to load the delivery side past that ceiling.",
    `Delivery: ${WEBHOOK_LANES.count} lanes × ${WEBHOOK_LANES.batchSize} jobs claimed, ${WEBHOOK_LANES.pollIntervalMs} ms poll, keep-alive agent per destination; every attempt recorded.`,
    'Lag is from the payment transaction\'s commit to the receiver reading the callback; "delivered/s" counts first receipts during the load window.',
    '',
    ...TABLE,
    ...results.map(row),
    '',
  ].join('\n');
}

function isolationReport(results: Result[]): string {
  return [
    '### Webhook isolation between tenants',
    '',
    measuredBy(),
    `Source \`isolation\`: \`events\` at ${SETTINGS.isolationRatePerSecond}/s for the measured tenant (D) for ${SETTINGS.durationS} s while another tenant (C) sends ${SETTINGS.hangingRatePerSecond}/s and C's receiver`,
    `accepts TCP connections and never answers (not even the TLS handshake), with ${SETTINGS.hangingBacklog.toLocaleString('en')} of C's webhooks queued first. \`isolation-baseline\`: the same`,
    `load, C's receiver answering (same run, a service of its own). Lag and "lost" are D's. Goal: D's p99 < ${SETTINGS.isolationGoalP99Ms} ms.`,
    '',
    ...TABLE,
    ...results.map(row),
    '',
    ...results.map(
      (r) =>
        `${r.source} on ${r.target}: D p99 ${r.lagMs.p99} ms, goal < ${SETTINGS.isolationGoalP99Ms} ms: ${r.lagMs.p99 < SETTINGS.isolationGoalP99Ms ? 'met' : '**not met**'}.`,
    ),
    '',
  ].join('\n');
}

const results: Result[] = [];
for (const target of SETTINGS.targets) {
  for (const source of SETTINGS.sources) {
    log(`running on ${target}, source ${source}`);
    try {
      const result = await runTarget(target, source);
      log(JSON.stringify(result));
      results.push(result);
    } catch (error) {
      log(`${target} ${source} failed: ${(error as Error).stack ?? error}`);
    }
  }
}
const throughput = results.filter((r) => !isIsolation(r.source));
const isolation = results.filter((r) => isIsolation(r.source));
if (throughput.length) writeNotesSection(SETTINGS.output, 'webhooks', throughputReport(throughput));
if (isolation.length) writeNotesSection(SETTINGS.output, 'webhook-isolation', isolationReport(isolation));
process.exit(results.length && results.every((r) => r.ledgerOk) ? 0 : 1);
