/**
 * More nodes never means less throughput (issue 26, item 6): POST /v2/cob at max throughput (closed loop, the
 * same connections in all) against 1, 2 and 3 pixd nodes sharing one PostgreSQL database. Every node runs for
 * the whole bench; a run loads the first k, its connections spread over them in turn. Each round measures
 * 1, 2 and 3 nodes (in a rotated order, so a drift of the machine's load does not always favour the same count),
 * and the ratios are taken within a round: the 1-node run is the same-run baseline. Also read per run: the
 * bench database's commits per create (`pg_stat_database.xact_commit`: how many charges a group statement
 * carried) and the server's WAL syncs per create (`pg_stat_wal`, cluster-wide: other databases' writes count).
 * Standalone: `node --import tsx bench/scenarios/node-count.ts`.
 */
import os from 'node:os';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadSettings } from '../settings.ts';
import { startPixd, type Target } from '../targets.ts';
import { runIfMain } from '../lifecycle.ts';
import { runLoad } from '../load.ts';
import { cpuSeconds, cpuUsedBetween } from '../cpu.ts';
import { writeNotesSection } from '../notes-section.ts';
import { median } from '../stats.ts';
import { describeMachine } from '../machine.ts';
import { cobBody, jsonRequest } from './scenario.ts';

const SETTINGS = {
  rounds: Number(process.env.BENCH_NODE_COUNT_ROUNDS || 5),
  nodeCounts: [1, 2, 3],
  /** One application per connection: 500 creates/s each, so the per-application limit never caps a run. */
  connections: 64,
  /** Lets sockets and the nodes' queues settle between runs. */
  pauseMs: 1_000,
  /** Issue 26: two nodes on this two-core machine must give at least this share of one node's creates/s. */
  goalRatio: 0.9,
};
const log = (line: string) => process.stderr.write(`bench node-count: ${line}\n`);

interface Run {
  nodes: number;
  createsPerSecond: number;
  p99Ms: number;
  commitsPerCreate: number;
  walSyncsPerCreate: number;
  serverCpuPercent: number;
  databaseCpuPercent: number;
  others: number;
}

/** Counters of the bench database and the server, read before and after a run. */
async function counters(admin: pg.Client, database: string) {
  // Statistics are flushed by backends about once a second: ask for a fresh snapshot.
  await admin.query('select pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ commits: string; syncs: string }>(
    `select (select xact_commit from pg_stat_database where datname = $1) as commits,
            (select wal_sync from pg_stat_wal) as syncs`,
    [database],
  );
  return { commits: Number(rows[0].commits), syncs: Number(rows[0].syncs) };
}

async function measure(
  target: Target,
  urls: string[],
  pids: number[],
  nodes: number,
  durationS: number,
  admin: pg.Client,
  database: string,
): Promise<Run> {
  const used = urls.slice(0, nodes);
  const plans = used.map((url, n) => ({
    url,
    durationS,
    expectStatus: 201,
    connections: target.parties
      .slice(0, SETTINGS.connections)
      .filter((_, i) => i % nodes === n)
      .map((party) => ({ tls: party.tls, request: jsonRequest('POST', '/v2/cob', party, cobBody(party.chave)) })),
  }));
  const readCpu = async () => ({
    server: cpuSeconds(pids.slice(0, nodes)),
    database: cpuSeconds((await target.processes()).database),
  });
  const before = { cpu: await readCpu(), counters: await counters(admin, database) };
  const started = performance.now();
  const results = await Promise.all(plans.map((plan) => runLoad(plan)));
  const wallS = (performance.now() - started) / 1000;
  // The last second's statistics reach the shared counters within a second.
  await sleep(1_100);
  const after = { cpu: await readCpu(), counters: await counters(admin, database) };
  const creates = results.reduce((sum, r) => sum + r.ok, 0);
  return {
    nodes,
    createsPerSecond: results.reduce((sum, r) => sum + r.okPerSecond, 0),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    commitsPerCreate: (after.counters.commits - before.counters.commits) / creates,
    walSyncsPerCreate: (after.counters.syncs - before.counters.syncs) / creates,
    serverCpuPercent: (cpuUsedBetween(before.cpu.server, after.cpu.server) / wallS) * 100,
    databaseCpuPercent: (cpuUsedBetween(before.cpu.database, after.cpu.database) / wallS) * 100,
    others: results.reduce(
      (sum, r) => sum + Object.entries(r.statuses).reduce((n, [s, c]) => n + (s === '201' ? 0 : c), r.errors),
      0,
    ),
  };
}

async function runNodeCountBench(): Promise<void> {
  const settings = loadSettings();
  const machine = describeMachine();
  const target = await startPixd('postgres', {
    applications: SETTINGS.connections,
    adminUrl: settings.adminUrl,
  });
  const admin = new pg.Client({ connectionString: settings.adminUrl });
  await admin.connect();
  try {
    const added = [];
    for (let n = 1; n < Math.max(...SETTINGS.nodeCounts); n++) added.push(await target.addNode!());
    const urls = [target.url, ...added.map((node) => node.url)];
    const pids = [(await target.processes()).server[0], ...added.map((node) => node.pid)];
    const benchDatabase = target.databaseName!;
    // Warm-up: every node's pools, plans and JIT, unrecorded.
    for (const nodes of SETTINGS.nodeCounts)
      await measure(target, urls, pids, nodes, settings.warmupS || 2, admin, benchDatabase);
    const rounds: Run[][] = [];
    for (let round = 0; round < SETTINGS.rounds; round++) {
      const order = SETTINGS.nodeCounts.map((_, i) => SETTINGS.nodeCounts[(i + round) % SETTINGS.nodeCounts.length]);
      const runs: Run[] = [];
      for (const nodes of order) {
        await sleep(SETTINGS.pauseMs);
        const run = await measure(target, urls, pids, nodes, settings.durationS, admin, benchDatabase);
        log(`round ${round + 1}, ${nodes} node(s): ${JSON.stringify(run)}`);
        runs.push(run);
      }
      rounds.push(runs.sort((a, b) => a.nodes - b.nodes));
    }
    write(settings.output, machine, settings.durationS, rounds);
  } finally {
    await admin.end();
    await target.close();
  }
}

/** CPU per create, pixd's and PostgreSQL's: steadier than creates/s where other jobs take the cores. */
const cpuPerCreateUs = (r: Run) => ((r.serverCpuPercent + r.databaseCpuPercent) * 10_000) / r.createsPerSecond;

function write(output: string, machine: ReturnType<typeof describeMachine>, durationS: number, rounds: Run[][]) {
  const of = (nodes: number) => rounds.map((runs) => runs.find((r) => r.nodes === nodes)!);
  const med = (values: number[]) => median(values);
  const range = (values: number[], digits = 0) => {
    const sorted = [...values].sort((a, b) => a - b);
    const f = (v: number) =>
      v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
    return `${f(med(values))} (${f(sorted[0])}–${f(sorted.at(-1)!)})`;
  };
  const ratioOf = (nodes: number) =>
    rounds.map((runs) => runs.find((r) => r.nodes === nodes)!.createsPerSecond / runs[0].createsPerSecond);
  const twoNodes = med(ratioOf(2));
  writeNotesSection(
    output,
    'node-count',
    [
      '### Node count: POST /v2/cob on 1, 2 and 3 nodes sharing one PostgreSQL',
      '',
      `Measured by \`node --import tsx bench/scenarios/node-count.ts\` (part of \`npm run bench\`) on ${machine.date}: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load average ${machine.loadAverage.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end, code ${machine.code}.`,
      `Max throughput, closed loop: ${SETTINGS.connections} connections (one application each) spread over the first k nodes in turn, ${durationS} s per run; ${rounds.length} rounds, each measuring 1, 2 and 3 nodes in a rotated order. Ratios are within a round (its 1-node run is the baseline), then the median. Medians (min–max). Commits per create: the bench database's \`xact_commit\`; WAL syncs: \`pg_stat_wal.wal_sync\`, the whole server's. CPU: all nodes' processes, and the bench database's PostgreSQL backends, in per cent of one core.`,
      '',
      '| nodes | creates/s | ÷ 1 node (same round) | p99 ms | commits per create | WAL syncs per create | pixd CPU % | PostgreSQL CPU % | CPU µs per create (pixd + PostgreSQL) |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...SETTINGS.nodeCounts.map((nodes) => {
        const runs = of(nodes);
        return `| ${nodes} | ${range(runs.map((r) => r.createsPerSecond))} | ${range(ratioOf(nodes), 2)} | ${range(
          runs.map((r) => r.p99Ms),
          1,
        )} | ${range(
          runs.map((r) => r.commitsPerCreate),
          3,
        )} | ${range(
          runs.map((r) => r.walSyncsPerCreate),
          3,
        )} | ${range(runs.map((r) => r.serverCpuPercent))} | ${range(runs.map((r) => r.databaseCpuPercent))} | ${range(runs.map(cpuPerCreateUs))} |`;
      }),
      '',
      `Goal (issue 26): 2 nodes ≥ ${SETTINGS.goalRatio} × 1 node: ${twoNodes >= SETTINGS.goalRatio ? 'met' : '**not met**'} (median ratio ${twoNodes.toFixed(2)}).${rounds.some((runs) => runs.some((r) => r.others)) ? ' Some runs had answers other than 201 (see the log).' : ''}`,
      '',
    ].join('\n'),
  );
  log(`wrote ${output}`);
}

await runIfMain(import.meta.url, log, runNodeCountBench);
