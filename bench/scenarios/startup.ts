/**
 * Start-up (issue 18): how long `pixd start` takes until it prints its summary (it listens then), and how
 * much memory it holds, on a new data directory (first start) and again on the same one (restart), on the
 * embedded database and on PostgreSQL. Each start is the real command in a process of its own; memory is
 * read from /proc: the peak (VmHWM) and what it holds once idle (VmRSS after SETTINGS.idleMs).
 * Standalone: `node --import tsx bench/scenarios/startup.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshDatabase } from '../postgres.ts';
import { runIfMain } from '../lifecycle.ts';
import { writeNotesSection } from '../notes-section.ts';
import { median } from '../stats.ts';
import { describeMachine } from '../machine.ts';

const SETTINGS = {
  runs: Number(process.env.BENCH_STARTUP_RUNS || 5),
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/performance.md',
  /** Idle means after the start's own work: the webhook lanes and the outbox have polled a few times. */
  idleMs: 3000,
  goals: { firstStartS: 4, restartS: 2, peakMiB: 300, idleMiB: 200 },
};
const BIN = path.resolve('bin/pixd.js');
const log = (line: string) => process.stderr.write(`bench startup: ${line}\n`);

interface Start {
  readyS: number;
  peakMiB: number;
  idleMiB: number;
}

function memoryMiB(pid: number): { peak: number; current: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { peak: kib('VmHWM') / 1024, current: kib('VmRSS') / 1024 };
}

/** One `pixd start`: until its summary line, then idle, then SIGTERM. */
async function startOnce(dataDir: string, env: Record<string, string>): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = once(child, 'exit');
  try {
    for await (const line of createInterface({ input: child.stdout! }))
      if (line.startsWith('pixd ') && line.includes(' listening on ')) break;
    const readyS = (performance.now() - started) / 1000;
    if (child.exitCode !== null) throw new Error(`pixd start exited with ${child.exitCode}`);
    await sleep(SETTINGS.idleMs);
    const memory = memoryMiB(child.pid!);
    return { readyS, peakMiB: memory.peak, idleMiB: memory.current };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

interface Row {
  target: string;
  kind: 'first start' | 'restart';
  starts: Start[];
}

async function measureTarget(
  target: string,
  env: () => Promise<{ env: Record<string, string>; done(): Promise<void> }>,
) {
  const rows: Row[] = [
    { target, kind: 'first start', starts: [] },
    { target, kind: 'restart', starts: [] },
  ];
  for (let run = 0; run < SETTINGS.runs; run++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-bench-startup-'));
    const { env: settings, done } = await env();
    try {
      rows[0].starts.push(await startOnce(dataDir, settings));
      rows[1].starts.push(await startOnce(dataDir, settings));
      log(`${target} run ${run + 1}: ${JSON.stringify(rows.map((r) => r.starts.at(-1)))}`);
    } finally {
      await done();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

async function runStartupBench(): Promise<void> {
  const machine = describeMachine();
  const rows = [
    ...(await measureTarget('PGlite (embedded)', async () => ({ env: {}, done: async () => undefined }))),
    ...(await measureTarget('PostgreSQL', async () => {
      const database = await freshDatabase(SETTINGS.adminUrl, 'startup');
      return { env: { DATABASE_URL: database.url }, done: () => database.drop() };
    })),
  ];
  const cell = (values: number[], digits: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${median(values).toFixed(digits)} (${sorted[0].toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
  };
  const goalOf = (row: Row) => (row.kind === 'first start' ? SETTINGS.goals.firstStartS : SETTINGS.goals.restartS);
  const embedded = rows.filter((r) => r.target.startsWith('PGlite'));
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  writeNotesSection(
    SETTINGS.output,
    'startup',
    [
      '### Start-up and memory',
      '',
      `Measured by \`node --import tsx bench/scenarios/startup.ts\` (part of \`npm run bench\`) on ${machine.date}: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load average ${machine.loadAverage.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end, code ${machine.code}.`,
      `Each start is \`pixd start --port 0\` in its own process, timed from spawn to its summary line (it listens by then); "first start" on a new data directory (and, for PostgreSQL, a new database), "restart" again on the same one. Memory from /proc: peak resident (VmHWM) and resident ${SETTINGS.idleMs / 1000} s after the summary (idle). Medians of ${SETTINGS.runs} runs, (min–max).`,
      '',
      '| database | start | ready s | goal s | peak MiB | idle MiB |',
      '|---|---|---:|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${r.target} | ${r.kind} | ${cell(
            r.starts.map((s) => s.readyS),
            2,
          )} | ${goalOf(r)} | ${cell(
            r.starts.map((s) => s.peakMiB),
            0,
          )} | ${cell(
            r.starts.map((s) => s.idleMiB),
            0,
          )} |`,
      ),
      '',
      `Goals on the embedded database (issue 18): first start ≤ ${SETTINGS.goals.firstStartS} s ${met(median(embedded[0].starts.map((s) => s.readyS)) <= SETTINGS.goals.firstStartS)}; restart ≤ ${SETTINGS.goals.restartS} s ${met(median(embedded[1].starts.map((s) => s.readyS)) <= SETTINGS.goals.restartS)}; peak during first start ≤ ${SETTINGS.goals.peakMiB} MiB ${met(median(embedded[0].starts.map((s) => s.peakMiB)) <= SETTINGS.goals.peakMiB)}; idle ≤ ${SETTINGS.goals.idleMiB} MiB ${met(median(embedded[1].starts.map((s) => s.idleMiB)) <= SETTINGS.goals.idleMiB)}.`,
      '',
    ].join('\n'),
  );
  log(`wrote ${SETTINGS.output}`);
}

await runIfMain(import.meta.url, log, runStartupBench);
