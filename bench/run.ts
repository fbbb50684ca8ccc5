/**
 * `npm run bench`: starts the echo ceiling and pixd on each database in child processes, runs every
 * scenario against its targets (repeated, round-robin), writes docs/performance.md and cleans up.
 * Settings: see bench/settings.ts or the "How to run" section of the report.
 */
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadSettings, type Settings } from './settings.ts';
import { describeMachine } from './machine.ts';
import { Interrupted, cleanupAll, cleanupOnSignals, throwIfInterrupted } from './lifecycle.ts';
import { startEcho, startPixd, type Environment, type Target, type TargetId } from './targets.ts';
import { runLoad, type LoadPlan } from './load.ts';
import { scenarios, standalone, type Scenario } from './scenarios/index.ts';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeReport, type LedgerCheck, type Run, type ScenarioResult } from './report.ts';
import { describeVerification } from '../src/platform/ledger/verify.ts';
import { cpuSeconds, cpuUsedBetween } from './cpu.ts';

/** Lets sockets from the previous run close before the next starts. */
const PAUSE_BETWEEN_RUNS_MS = 500;

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** Start attempts per target: a failed start is logged and tried once more before the target is skipped. */
const START_ATTEMPTS = 2;

async function startTarget(id: TargetId, environment: Environment, settings: Settings): Promise<Target> {
  for (let attempt = 1; ; attempt++) {
    try {
      return id === 'echo'
        ? await startEcho()
        : await startPixd(id, {
            applications: settings.applications,
            adminUrl: settings.adminUrl,
            environment,
          });
    } catch (error) {
      throwIfInterrupted();
      if (attempt >= START_ATTEMPTS) throw error;
      log(`${id} (${environment}) failed to start (attempt ${attempt}): ${(error as Error).message}; retrying`);
    }
  }
}

/** One measured run, with the CPU time the target's processes spent on it. */
async function measure(target: Target, plan: LoadPlan): Promise<Run> {
  const readCpu = async () => {
    const pids = await target.processes();
    return { server: cpuSeconds(pids.server), database: cpuSeconds(pids.database) };
  };
  const before = await readCpu();
  const started = performance.now();
  const measurement = await runLoad(plan);
  const wallS = (performance.now() - started) / 1000;
  const after = await readCpu();
  return {
    ...measurement,
    wallS,
    serverCpuS: cpuUsedBetween(before.server, after.server),
    databaseCpuS: cpuUsedBetween(before.database, after.database),
  };
}

function describe(m: Run, unit = 'req'): string {
  const others = Object.entries(m.statuses)
    .filter(([status]) => Number(status) !== m.expectStatus)
    .map(([status, count]) => `${status}×${count}`);
  const extra = [...others, ...(m.errors ? [`no response×${m.errors}`] : [])];
  const cpu =
    `server CPU ${Math.round((m.serverCpuS / m.wallS) * 100)} %` +
    (m.databaseCpuS ? `, PostgreSQL CPU ${Math.round((m.databaseCpuS / m.wallS) * 100)} %` : '');
  return `${Math.round(m.okPerSecond)} ${unit}/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms, ${cpu}${extra.length ? ` (also ${extra.join(', ')})` : ''}`;
}

async function main(): Promise<void> {
  const settings = loadSettings();
  const machine = describeMachine();
  const started = Date.now();
  const selected = scenarios.filter(
    (s) => !settings.scenarioFilter.length || settings.scenarioFilter.some((f) => s.id.includes(f)),
  );
  // A pixd target per database and environment the selected scenarios need (sandbox ones run beside production).
  const environmentOf = (s: Scenario): Environment => s.environment ?? 'production';
  const runsOn = (s: Scenario, target: Target) =>
    s.targets.includes(target.id) && (target.id === 'echo' || environmentOf(s) === target.environment);
  const needed = settings.targets.flatMap((id) =>
    (['production', 'sandbox'] as const)
      .filter((env) =>
        selected.some(
          (s) => s.targets.includes(id) && (id === 'echo' ? env === 'production' : environmentOf(s) === env),
        ),
      )
      .map((env) => ({ id, env })),
  );

  const targets: Target[] = [];
  const skipped: { target: TargetId; environment: Environment; reason: string }[] = [];
  for (const { id, env } of needed) {
    log(`starting ${id}${id === 'echo' ? '' : ` (${env})`}`);
    try {
      targets.push(await startTarget(id, env, settings));
    } catch (error) {
      if (error instanceof Interrupted) throw error;
      // A missing PostgreSQL should not cost the rest of the run; the report says what was skipped.
      const reason = (error as Error).message;
      log(`${id} (${env}) not started: ${reason}`);
      skipped.push({ target: id, environment: env, reason });
    }
  }

  const results = new Map<string, ScenarioResult>();
  const plans = new Map<string, LoadPlan>();
  const planFor = async (scenario: Scenario, target: Target): Promise<LoadPlan> => {
    const key = `${scenario.id}@${target.id}`;
    let plan = plans.get(key);
    if (!plan) {
      plan = await scenario.plan(target, settings);
      plans.set(key, plan);
      if (settings.warmupS > 0) await runLoad({ ...plan, durationS: settings.warmupS });
    }
    return plan;
  };

  for (let repeat = 1; repeat <= settings.repeats; repeat++) {
    for (const target of targets) {
      for (const scenario of selected.filter((s) => runsOn(s, target))) {
        throwIfInterrupted();
        const plan = await planFor(scenario, target);
        await sleep(PAUSE_BETWEEN_RUNS_MS);
        const measurement = await measure(target, plan);
        log(`[${repeat}/${settings.repeats}] ${target.id} ${scenario.id}: ${describe(measurement, scenario.unit)}`);
        const key = `${scenario.id}@${target.id}`;
        const result = results.get(key) ?? { scenario, target: target.id, runs: [] };
        result.runs.push(measurement);
        results.set(key, result);
      }
    }
  }

  throwIfInterrupted();
  const ledgers = await verifyLedgers(targets);
  for (const target of targets) await target.close();
  const file = writeReport({
    settings,
    machine,
    // A database's sandbox pixd has the same label as its production one.
    labels: Object.fromEntries(targets.map((t) => [t.id, t.label])),
    skipped,
    records: [...results.values()],
    elapsedS: (Date.now() - started) / 1000,
    loadAverageEnd: os.loadavg()[0],
    ledgers,
  });
  log(`wrote ${file} in ${Math.round((Date.now() - started) / 1000)} s`);
  await runStandalone(settings);
}

/**
 * Every pixd target's ledger after its load: the journal sums to zero and each posted total equals its lines
 * (the operator's `pixd ledger verify`). A drift fails the bench: fast numbers from a wrong ledger are worth nothing.
 */
async function verifyLedgers(targets: Target[]): Promise<LedgerCheck[]> {
  const checks: LedgerCheck[] = [];
  for (const target of targets) {
    if (!target.verifyLedger) continue;
    const verification = await target.verifyLedger();
    const check = { label: `${target.label} (${target.environment})`, verification };
    log(`ledger of ${check.label}: ${describeVerification(verification)}`);
    if (!verification.ok) process.exitCode = 1;
    checks.push(check);
  }
  return checks;
}

/**
 * The benches that are not request loads (each writes its own section of the notes), in child processes of
 * their own so their memory and CPU are measured alone. Selected by BENCH_SCENARIOS like the rest.
 */
async function runStandalone(settings: Settings): Promise<void> {
  for (const file of standalone) {
    const id = file.replace(/\.ts$/, '');
    if (settings.scenarioFilter.length && !settings.scenarioFilter.some((f) => id.includes(f))) continue;
    throwIfInterrupted();
    log(`standalone ${id}`);
    const child = spawn(process.execPath, ['--import', 'tsx', `bench/scenarios/${file}`], { stdio: 'inherit' });
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) log(`standalone ${id} failed (exit ${code})`);
  }
}

cleanupOnSignals();
try {
  await main();
} catch (error) {
  if (error instanceof Interrupted) {
    log(`${error.message}; no report written`);
    process.exitCode = 130;
  } else {
    log(`failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  }
} finally {
  await cleanupAll();
}
