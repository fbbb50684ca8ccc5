/** Bench settings, from the environment. Every one has a default; `npm run bench` needs none. */
import type { TargetId } from './targets.ts';

export interface Settings {
  /** Seconds per measured run (BENCH_DURATION_S). */
  durationS: number;
  /** Seconds of unrecorded load before a scenario's first measured run on a target (BENCH_WARMUP_S). */
  warmupS: number;
  /** Measured runs per scenario and target; tables show medians (BENCH_REPEATS). */
  repeats: number;
  /** Concurrent connections of max-throughput runs and of the fixed-rate run (BENCH_CONNECTIONS). */
  connections: number;
  /**
   * Connections of the second max-throughput run of echo and POST /v2/cob (BENCH_SATURATION_CONNECTIONS):
   * enough to keep a server that waits on its database busy. Each server's max is the better of its two.
   */
  saturationConnections: number;
  /** Applications of the production pixd (BENCH_APPLICATIONS): 500 req/s each caps what POST /v2/cob can reach. */
  applications: number;
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
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !allowZero))
    throw new Error(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got "${raw}"`);
  return value;
}

function list(name: string, fallback: string[]): string[] {
  const raw = process.env[name];
  return raw
    ? raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : fallback;
}

export function loadSettings(): Settings {
  const targets = list('BENCH_TARGETS', ['echo', 'pglite', 'postgres']);
  const unknown = targets.filter((t) => !['echo', 'pglite', 'postgres'].includes(t));
  if (unknown.length) throw new Error(`BENCH_TARGETS: unknown target(s) ${unknown.join(', ')}`);
  const connections = Math.round(numberFrom('BENCH_CONNECTIONS', 10));
  const applications = Math.round(numberFrom('BENCH_APPLICATIONS', 20));
  if (applications < connections)
    throw new Error(
      `BENCH_APPLICATIONS (${applications}) must be at least BENCH_CONNECTIONS (${connections}): the fixed-rate run uses one application per connection`,
    );
  return {
    durationS: numberFrom('BENCH_DURATION_S', 10),
    warmupS: numberFrom('BENCH_WARMUP_S', 2, { allowZero: true }),
    repeats: Math.round(numberFrom('BENCH_REPEATS', 3)),
    connections,
    saturationConnections: Math.round(numberFrom('BENCH_SATURATION_CONNECTIONS', 64)),
    applications,
    ratePerSecond: Math.round(numberFrom('BENCH_RATE', 500)),
    adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    targets: targets as TargetId[],
    scenarioFilter: list('BENCH_SCENARIOS', []),
    output: process.env.BENCH_OUTPUT || 'docs/performance.md',
  };
}
