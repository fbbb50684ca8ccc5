/** Bench settings, from the environment. Every one has a default; `npm run bench` needs none. */
import type { TargetId } from './targets.ts';

export interface Settings {
  /** Seconds per measured run (BENCH_DURATION_S). */
  durationS: number;
  /** Seconds of unrecorded load before a scenario's first measured run on a target (BENCH_WARMUP_S). */
  warmupS: number;
  /** Measured runs per scenario and target; tables show medians (BENCH_REPEATS). */
  repeats: number;
  /** Concurrent connections of max-throughput runs; also the number of pixd applications (BENCH_CONNECTIONS). */
  connections: number;
  /** Offered load of fixed-rate runs, requests per second (BENCH_RATE). */
  ratePerSecond: number;
  /** PostgreSQL server where a fresh database is created and dropped (BENCH_PG_URL). */
  adminUrl: string;
  /** Which targets to run (BENCH_TARGETS, comma-separated: echo,pglite,postgres). */
  targets: TargetId[];
  /** Only scenarios whose id contains one of these (BENCH_SCENARIOS, comma-separated); empty means all. */
  scenarioFilter: string[];
  /** Where the report goes (BENCH_OUTPUT). */
  output: string;
}

function numberFrom(name: string, fallback: number, { allowZero = false } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !allowZero)) throw new Error(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got "${raw}"`);
  return value;
}

function list(name: string, fallback: string[]): string[] {
  const raw = process.env[name];
  return raw ? raw.split(',').map((s) => s.trim()).filter(Boolean) : fallback;
}

export function loadSettings(): Settings {
  const targets = list('BENCH_TARGETS', ['echo', 'pglite', 'postgres']);
  const unknown = targets.filter((t) => !['echo', 'pglite', 'postgres'].includes(t));
  if (unknown.length) throw new Error(`BENCH_TARGETS: unknown target(s) ${unknown.join(', ')}`);
  return {
    durationS: numberFrom('BENCH_DURATION_S', 10),
    warmupS: numberFrom('BENCH_WARMUP_S', 2, { allowZero: true }),
    repeats: Math.round(numberFrom('BENCH_REPEATS', 3)),
    connections: Math.round(numberFrom('BENCH_CONNECTIONS', 10)),
    ratePerSecond: Math.round(numberFrom('BENCH_RATE', 500)),
    adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    targets: targets as TargetId[],
    scenarioFilter: list('BENCH_SCENARIOS', []),
    output: process.env.BENCH_OUTPUT || 'docs/performance.md',
  };
}
