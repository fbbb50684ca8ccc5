/**
 * pixd in an integrator's suite (issue 33): the time from `startPixd()` to the first successful charge
 * (in-process and as a `pixd start` child, on the embedded database and on PostgreSQL), and the time of
 * `POST /sandbox/reset` and of a snapshot restore with 1,000 charges in the account (a fifth of them paid).
 * Standalone: `node --import tsx bench/scenarios/testing-helper.ts`.
 */
import os from 'node:os';
import { startPixd } from '../../src/testing/index.ts';
import type { Pixd, StartPixdOptions } from '../../src/testing/public.d.ts';
import { runIfMain } from '../lifecycle.ts';
import { writeNotesSection } from '../notes-section.ts';
import { median } from '../stats.ts';
import { describeMachine } from '../machine.ts';

const SETTINGS = {
  runs: Number(process.env.BENCH_TESTING_RUNS || 5),
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/performance.md',
  charges: 1_000,
  paidEvery: 5,
  /** Requests in flight while the account is filled. */
  fillConcurrency: 16,
  goals: { startToChargeS: 2, resetMs: 200 },
};
const log = (line: string) => process.stderr.write(`bench testing-helper: ${line}\n`);

const charge = (pixd: Pixd, original: string) =>
  pixd.api.pix('POST', '/v2/cob', {
    calendario: { expiracao: 3600 },
    valor: { original },
    chave: pixd.credentials.chaves[0],
  });

/** Seconds from the call to `startPixd` to the first charge created. */
async function startToCharge(options: StartPixdOptions): Promise<number> {
  const started = performance.now();
  const pixd = await startPixd(options);
  try {
    await charge(pixd, '25.00');
    return (performance.now() - started) / 1000;
  } finally {
    await pixd.stop();
  }
}

/** A charge created even when the fill outruns the rate limit (500 per second: PostgreSQL on a quiet machine does). */
async function chargeWithinLimit(pixd: Pixd, original: string): Promise<Record<string, unknown>> {
  for (;;) {
    try {
      return await charge(pixd, original);
    } catch (error) {
      if ((error as { status?: number }).status !== 429) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** The account holds `SETTINGS.charges` charges, every `paidEvery`-th paid (Pix, journal lines). */
async function fill(pixd: Pixd): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < SETTINGS.charges; i = next++) {
      const cob = await chargeWithinLimit(pixd, `${11 + (i % 50)}.00`);
      if (i % SETTINGS.paidEvery === 0) await pixd.sandbox.pay(String(cob.txid));
    }
  };
  await Promise.all(Array.from({ length: SETTINGS.fillConcurrency }, worker));
}

async function timedMs(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

interface Row {
  what: string;
  values: number[];
  unit: 's' | 'ms';
  goal?: number;
}

async function measureResets(postgresUrl?: string): Promise<Row[]> {
  const database = postgresUrl ? 'PostgreSQL' : 'PGlite (embedded)';
  const pixd = await startPixd(postgresUrl ? { postgresUrl } : {});
  const resets: number[] = [];
  const restores: number[] = [];
  try {
    for (let run = 0; run < SETTINGS.runs; run++) {
      await fill(pixd);
      if (run === 0) await pixd.snapshots.save('bench_full');
      resets.push(await timedMs(() => pixd.sandbox.reset()));
      restores.push(await timedMs(() => pixd.snapshots.restore('bench_full')));
      await pixd.sandbox.reset();
      log(
        `${database} run ${run + 1}: reset ${resets.at(-1)!.toFixed(0)} ms, restore ${restores.at(-1)!.toFixed(0)} ms`,
      );
    }
  } finally {
    await pixd.stop();
  }
  return [
    {
      what: `${database}: reset with ${SETTINGS.charges} charges`,
      values: resets,
      unit: 'ms',
      goal: SETTINGS.goals.resetMs,
    },
    { what: `${database}: snapshot restore of the same (whole sandbox)`, values: restores, unit: 'ms' },
  ];
}

async function measureStarts(): Promise<Row[]> {
  const targets: [string, StartPixdOptions][] = [
    ['PGlite (embedded), in-process', {}],
    ['PGlite (embedded), child process', { mode: 'child' }],
    ['PostgreSQL, in-process', { postgresUrl: SETTINGS.adminUrl }],
  ];
  // The first start of a machine builds the template, and the first in this process loads pixd's modules.
  const first = await startToCharge({});
  log(`first start in this process: ${first.toFixed(2)} s`);
  const rows: Row[] = [
    { what: 'first start in a test process (modules load; template already built)', values: [first], unit: 's' },
  ];
  for (const [what, options] of targets) {
    await startToCharge(options); // the template for this database
    const values: number[] = [];
    for (let run = 0; run < SETTINGS.runs; run++) values.push(await startToCharge(options));
    log(`${what}: ${values.map((v) => v.toFixed(2)).join(', ')} s`);
    rows.push({
      what: `startPixd() to the first charge: ${what}`,
      values,
      unit: 's',
      goal: SETTINGS.goals.startToChargeS,
    });
  }
  return rows;
}

async function runTestingHelperBench(): Promise<void> {
  const machine = describeMachine();
  const rows = [...(await measureStarts()), ...(await measureResets()), ...(await measureResets(SETTINGS.adminUrl))];
  const digits = (row: Row) => (row.unit === 's' ? 2 : 0);
  const cell = (row: Row) => {
    const sorted = [...row.values].sort((a, b) => a - b);
    const m = median(row.values).toFixed(digits(row));
    return sorted.length > 1 ? `${m} (${sorted[0].toFixed(digits(row))}–${sorted.at(-1)!.toFixed(digits(row))})` : m;
  };
  const goal = (row: Row) =>
    row.goal === undefined
      ? ''
      : `≤ ${row.goal} ${row.unit}: ${median(row.values) <= row.goal ? 'met' : '**not met**'}`;
  writeNotesSection(
    SETTINGS.output,
    'testing-helper',
    [
      "### pixd in an integrator's suite (`pixd/testing`)",
      '',
      `Measured by \`node --import tsx bench/scenarios/testing-helper.ts\` (part of \`npm run bench\`) on ${machine.date}: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load average ${machine.loadAverage.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end, code ${machine.code}.`,
      `A start is \`startPixd()\` (a copy of the template: data directory, and a database on PostgreSQL) until its first \`POST /v2/cob\` answered 201. A reset is \`POST /sandbox/reset\` on an account holding ${SETTINGS.charges} charges of which every ${SETTINGS.paidEvery}th was paid; the restore puts back a snapshot of the same state. Medians of ${SETTINGS.runs} runs (min–max).`,
      '',
      '| measure | value | goal |',
      '|---|---:|---|',
      ...rows.map((row) => `| ${row.what} | ${cell(row)} ${row.unit} | ${goal(row)} |`),
      '',
    ].join('\n'),
  );
  log(`wrote ${SETTINGS.output}`);
}

await runIfMain(import.meta.url, log, runTestingHelperBench);
