/**
 * Duplicate webhooks under kill -9 (issue 26 item 3): how many deliveries a receiver gets twice when the
 * node delivering them is killed with SIGKILL again and again under steady load, and with no kill (same run).
 *
 * On PostgreSQL. This process runs pixd only to write the events (`webhook.pix` outbox rows, as the payment
 * engine's `enqueuePixEvent` writes them) at a fixed rate; its own webhook lanes are stopped, so the deliveries
 * are made by a pixd node in a child process (`bench/pixd-server.ts`, a copy of this data directory: the same
 * CA and client certificate), which is killed every `BENCH_CRASH_KILL_EVERY_S` and started again at once. The
 * restarted node frees its dead predecessor's claims at start and sends what was in flight. A duplicate needs
 * the node to die between the receiver reading a call and the commit of its attempt record.
 * Results go to the "Duplicates under kill -9" section of docs/webhooks.md.
 * `node --import tsx bench/scenarios/webhook-crash.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/runtime.ts';
import { receiverCa, receiverCaFile, startReceiver } from '../receiver.ts';
import { setWebhookSettings } from '../../src/platform/webhooks/settings.ts';
import { WebhookDispatcher } from '../../src/platform/webhooks/dispatcher.ts';
import { registerPixWebhook } from '../../src/pix/webhook/service.ts';
import { enqueueSyntheticPixEvent } from '../synthetic-pix.ts';
import { processAlive } from '../../src/platform/processes.ts';
import { freshDatabase } from '../postgres.ts';
import { startChild, type Child } from '../processes.ts';
import { cleanupAll, cleanupOnSignals } from '../lifecycle.ts';
import type { PixdReady } from '../pixd-server.ts';
import { writeNotesSection } from '../notes-section.ts';

const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const SETTINGS = {
  ratePerSecond: env('BENCH_CRASH_RATE', 200),
  durationS: env('BENCH_CRASH_DURATION_S', 40),
  killEveryS: env('BENCH_CRASH_KILL_EVERY_S', 4),
  /**
   * After the load, how long the last node may take to deliver the rest: past the first retry (1 minute), for
   * a call that failed meanwhile (a restarted node's first handshakes on a saturated machine).
   */
  drainTimeoutS: 150,
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/webhooks.md',
};
const PIXD_SERVER = path.join(import.meta.dirname, '..', 'pixd-server.ts');
const log = (line: string) => process.stderr.write(`bench webhook-crash: ${line}\n`);

interface Result {
  kills: number;
  committed: number;
  delivered: number;
  duplicates: number;
  lost: number;
}

async function untilDead(pid: number): Promise<void> {
  while (processAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The parent's service: writes events, delivers nothing. */
async function eventSource(dataDir: string, databaseUrl: string) {
  const config = loadConfig({
    PIXD_DATA_DIR: dataDir,
    PORT: '0',
    PIXD_ENV: 'production',
    LOG_LEVEL: 'silent',
    PIXD_WEBHOOK_ALLOW: '127.0.0.0/8',
    DATABASE_URL: databaseUrl,
  });
  const service: RunningService = await startService(config, { logger: false });
  setWebhookSettings({ extraCaPem: receiverCa().certPem });
  const dispatcher = service.ctx.webhooks;
  if (!(dispatcher instanceof WebhookDispatcher)) throw new Error('the service runs no WebhookDispatcher');
  const { rows } = await service.ctx.db.query<{ account_id: number }>(
    'select account_id from applications where client_id = $1',
    [service.credentials.clientId],
  );
  return { service, dispatcher, accountId: rows[0].account_id, chave: service.credentials.chaves[0] };
}

async function run(kill: boolean): Promise<Result> {
  const database = await freshDatabase(SETTINGS.adminUrl, kill ? 'crash' : 'calm');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-bench-crash-'));
  const nodeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-bench-crash-node-'));
  const { service, dispatcher, accountId, chave } = await eventSource(dataDir, database.url);
  const receiver = await startReceiver(service.ctx.pki.ca.certPem);
  let node: Child<PixdReady> | undefined;
  try {
    const { db, clock, config } = service.ctx;
    const caller = { accountId, now: clock.now(), publicUrl: config.publicUrl, chargeCreated: [] };
    await registerPixWebhook({ db, transport: dispatcher.transport }, caller, chave, `${receiver.url}/webhook`, false);
    await dispatcher.stop();
    // The node's data directory: this one's certificates and credentials, its own lock.
    fs.cpSync(dataDir, nodeDir, { recursive: true, filter: (source) => path.basename(source) !== 'pixd.lock' });
    const nodeEnv = {
      PIXD_DATA_DIR: nodeDir,
      DATABASE_URL: database.url,
      PIXD_WEBHOOK_ALLOW: '127.0.0.0/8',
      NODE_EXTRA_CA_CERTS: receiverCaFile(),
    };
    node = await startChild<PixdReady>(PIXD_SERVER, nodeEnv);

    const committed = new Set<string>();
    let restarting: Promise<void> | undefined;
    let kills = 0;
    let nextKillMs = performance.now() + SETTINGS.killEveryS * 1000;
    const started = performance.now();
    let offered = 0;
    while (performance.now() - started < SETTINGS.durationS * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * SETTINGS.ratePerSecond) - offered;
      if (due > 0) {
        offered += due;
        const ids = await db.tx(async (sql) => {
          const made: string[] = [];
          for (let i = 0; i < due; i++) {
            made.push(await enqueueSyntheticPixEvent(sql, accountId, chave, clock.now()));
          }
          return made;
        });
        for (const id of ids) committed.add(id);
      }
      // The next node starts while the events go on being written; it is killed in turn once it has been up
      // for the interval.
      if (kill && node && performance.now() >= nextKillMs) {
        const { pid } = node;
        node = undefined;
        process.kill(pid, 'SIGKILL');
        await untilDead(pid);
        kills++;
        restarting = startChild<PixdReady>(PIXD_SERVER, nodeEnv).then((started) => {
          node = started;
          nextKillMs = performance.now() + SETTINGS.killEveryS * 1000;
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await restarting;
    const deadline = Date.now() + SETTINGS.drainTimeoutS * 1000;
    let report = await receiver.report();
    while ([...committed].some((id) => !report.receipts[id]) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      report = await receiver.report();
    }
    let delivered = 0;
    let duplicates = 0;
    for (const id of committed) {
      const times = report.receipts[id];
      if (!times) continue;
      delivered++;
      duplicates += times.length - 1;
    }
    return { kills, committed: committed.size, delivered, duplicates, lost: committed.size - delivered };
  } finally {
    await node?.stop();
    receiver.kill();
    await service.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(nodeDir, { recursive: true, force: true });
  }
}

function section(results: { kill: boolean; result: Result }[]): string {
  const pct = (r: Result) => (r.delivered ? ((r.duplicates / r.delivered) * 100).toFixed(2) : '—');
  return [
    '#### Duplicates under kill -9 (measured)',
    '',
    `Measured by \`node --import tsx bench/scenarios/webhook-crash.ts\` on ${new Date().toISOString()} (${os.cpus().length} cores, Node ${process.version}, PostgreSQL, load average ${os.loadavg()[0].toFixed(1)} at the end):`,
    `\`webhook.pix\` events written at ${SETTINGS.ratePerSecond}/s for ${SETTINGS.durationS} s, delivered by one pixd node in a child process to a local`,
    `mutual-TLS receiver; with kills, the node gets SIGKILL once it has been up ${SETTINGS.killEveryS} s and a new one is started at once (events go on being written meanwhile). Same run, without kills as the baseline.`,
    '',
    '| kills | events | delivered | extra receipts (duplicates) | duplicate rate | duplicates per kill | lost |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      ({ result: r }) =>
        `| ${r.kills} | ${r.committed.toLocaleString('en')} | ${r.delivered.toLocaleString('en')} | ${r.duplicates} | ${pct(r)} % | ${r.kills ? (r.duplicates / r.kills).toFixed(1) : '—'} | ${r.lost} |`,
    ),
    '',
  ].join('\n');
}

cleanupOnSignals();
try {
  const results: { kill: boolean; result: Result }[] = [];
  for (const kill of [false, true]) {
    log(kill ? 'with kills' : 'baseline, no kill');
    const result = await run(kill);
    log(JSON.stringify(result));
    results.push({ kill, result });
  }
  writeNotesSection(SETTINGS.output, 'webhook-crash', section(results));
  process.exit(results.every(({ result }) => result.lost === 0) ? 0 : 1);
} catch (error) {
  log(`failed: ${(error as Error).stack ?? error}`);
  await cleanupAll();
  process.exit(1);
}
