/**
 * Writes docs/performance.md from one bench run. Tables show the median of the repeated runs; every run
 * is listed at the end. Text between the NOTES markers is written by hand and kept across regenerations.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Machine } from './machine.ts';
import type { Measurement } from './load.ts';
import type { Settings } from './settings.ts';
import type { Scenario } from './scenarios/index.ts';
import type { TargetId } from './targets.ts';
import { median } from './stats.ts';
import { PIX_SEEDED_PER_APPLICATION } from './scenarios/settlement.ts';
import { describeVerification, type LedgerVerification } from '../src/platform/ledger/verify.ts';

/** A measurement plus the CPU seconds the target's processes used during it. */
export interface Run extends Measurement {
  wallS: number;
  serverCpuS: number;
  databaseCpuS: number;
}

export interface ScenarioResult {
  scenario: Scenario;
  target: TargetId;
  runs: Run[];
}

export interface ReportInput {
  settings: Settings;
  machine: Machine;
  labels: Partial<Record<TargetId, string>>;
  /** Targets that did not start; `environment` tells a database's sandbox pixd from its production one. */
  skipped: { target: TargetId; environment?: string; reason: string }[];
  records: ScenarioResult[];
  elapsedS: number;
  /** 1-minute load average when the bench finished. */
  loadAverageEnd: number;
  /** Each pixd target's ledger, verified after its load. */
  ledgers: LedgerCheck[];
}

export interface LedgerCheck {
  label: string;
  verification: LedgerVerification;
}

function ledgerSection(input: ReportInput): string[] {
  if (!input.ledgers.length) return [];
  return [
    '## Ledger after the load',
    '',
    'Each pixd target ran `pixd ledger verify` (through the operator API) once its scenarios were done.',
    '',
    ...input.ledgers.map((l) => `- ${l.label}: ${describeVerification(l.verification).replace(/\n\s*/g, '; ')}`),
  ];
}

/** The goals the numbers are held against. */
export const GOALS = {
  createShareOfEchoMin: 0.3,
  createP99AtRateMaxMs: 15,
  /** Issue 11: settlement's max pairs/s over POST /v2/cob's max req/s, same run. */
  settlementShareOfCreateMin: 0.25,
  /** Issue 11: GET /v2/pix, page of 100. */
  pixListMinPerSecond: 1500,
  /** Issue 14: sends settled REALIZADO per second over settlement pairs/s, same run. */
  sendShareOfSettlementMin: 0.5,
};

const NOTES_START = '<!-- notes:start (hand-written, kept when the bench rewrites this file) -->';
const NOTES_END = '<!-- notes:end -->';

interface Summary {
  okPerSecond: number;
  /** Lowest and highest req/s of the repeats, shown next to the median. */
  okRange: [number, number];
  p50Ms: number;
  p99Ms: number;
  /** CPU microseconds per response: the server process, and PostgreSQL's backends. */
  serverCpuUs: number;
  databaseCpuUs: number;
  /** Server CPU time over wall time: 100 % is one core saturated. */
  serverBusy: number;
  unexpected: string;
}

const responses = (run: Run) => Object.values(run.statuses).reduce((sum, n) => sum + n, 0);

function summarise(record: ScenarioResult): Summary {
  const unexpected = new Map<string, number>();
  let errors = 0;
  for (const run of record.runs) {
    errors += run.errors;
    for (const [status, count] of Object.entries(run.statuses)) {
      if (Number(status) !== run.expectStatus) unexpected.set(status, (unexpected.get(status) ?? 0) + count);
    }
  }
  const parts = [...unexpected].map(([status, count]) => `${status} × ${count}`);
  if (errors) parts.push(`no response × ${errors}`);
  return {
    okPerSecond: median(record.runs.map((r) => r.okPerSecond)),
    okRange: [Math.min(...record.runs.map((r) => r.okPerSecond)), Math.max(...record.runs.map((r) => r.okPerSecond))],
    p50Ms: median(record.runs.map((r) => r.p50Ms)),
    p99Ms: median(record.runs.map((r) => r.p99Ms)),
    serverCpuUs: median(record.runs.map((r) => (r.serverCpuS * 1e6) / responses(r))),
    databaseCpuUs: median(record.runs.map((r) => (r.databaseCpuS * 1e6) / responses(r))),
    serverBusy: median(record.runs.map((r) => r.serverCpuS / r.wallS)),
    unexpected: parts.length ? parts.join(', ') : 'none',
  };
}

const rps = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : 'n/a');
const rpsWithRange = (s: Summary) =>
  s.okRange[0] === s.okRange[1]
    ? rps(s.okPerSecond)
    : `${rps(s.okPerSecond)} (${rps(s.okRange[0])}–${rps(s.okRange[1])})`;
/** A scenario that counts something other than requests says so next to the number: "212 pairs/s". */
const unitSuffix = (scenario: Scenario) => (scenario.unit ? ` ${scenario.unit}/s` : '');
const us = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const pct = (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(0)} %` : 'n/a');

function find(input: ReportInput, scenarioId: string, target: TargetId): ScenarioResult | undefined {
  return input.records.find((r) => r.scenario.id === scenarioId && r.target === target);
}

/** Max-throughput scenarios measured at several connection counts: a server's max is its best median. */
const ECHO_RUNS = ['echo', 'echo-saturated'];
const CREATE_MAX_RUNS = ['cob-create', 'cob-create-saturated'];
const SETTLEMENT_MAX_RUNS = ['settlement', 'settlement-saturated'];

function best(
  input: ReportInput,
  scenarioIds: string[],
  target: TargetId,
): { record: ScenarioResult; summary: Summary } | undefined {
  return scenarioIds
    .map((id) => find(input, id, target))
    .filter((record): record is ScenarioResult => record !== undefined)
    .map((record) => ({ record, summary: summarise(record) }))
    .reduce<{ record: ScenarioResult; summary: Summary } | undefined>(
      (top, next) => (!top || next.summary.okPerSecond > top.summary.okPerSecond ? next : top),
      undefined,
    );
}

/** Echo's max req/s: what every max-throughput share is taken of. */
const echoCeiling = (input: ReportInput) => best(input, ECHO_RUNS, 'echo')?.summary.okPerSecond ?? NaN;

function machineSection({ machine: m, settings: s, elapsedS, loadAverageEnd }: ReportInput): string[] {
  return [
    '## Machine',
    '',
    `- CPU: ${m.cpu}, ${m.cores} cores available; ${m.memoryGiB} GiB memory; ${m.os}`,
    `- Node ${m.node}, autocannon ${m.autocannon}; code measured: ${m.code}`,
    `- Run: ${m.date}, ${s.repeats} repeat(s) × ${s.durationS} s per measurement, ${Math.round(elapsedS)} s in all; 1-minute load average ${m.loadAverage.toFixed(2)} at start, ${loadAverageEnd.toFixed(2)} at the end`,
    '- The load generator, the server under test and PostgreSQL share these cores, and the machine is shared with other jobs: req/s swing between repeats (the ranges below, and "Every run"). CPU µs per request is the steadier measure; compare numbers from the same session only.',
  ];
}

function methodSection({ settings: s }: ReportInput): string[] {
  return [
    '## Method',
    '',
    '`npm run bench` (bench/run.ts) starts, in one run:',
    '',
    "- **echo**: a bare `node:https` server in a child process with pixd's TLS setup (RSA-2048 server certificate signed by a CA, `requestCert`, client certificate checked per request), which parses the JSON body and writes it back. It is the ceiling: the cost of mutual TLS, HTTP/1.1 and JSON on this machine with nothing behind it.",
    '- **pixd** in a child process (`node --import tsx bench/pixd-server.ts`, which calls `startService` like `pixd start` does; `PIXD_ENV=production`, `LOG_LEVEL=silent`, temporary data directory), once on PGlite (embedded) and once on PostgreSQL (a fresh database `pixd_bench_<pid>`, dropped at the end).',
    '- **pixd, sandbox**: scenarios that pay charges need the sandbox route POST /sandbox/pix/pay, so when they are selected each database also gets a second pixd with `PIXD_ENV=sandbox` (its own data directory, database `pixd_bench_<pid>_sandbox` and as many applications as the production one), started beside the production one. Only the pixd under load is measured; the idle one stays up so repeats can go round all targets. Sandbox rows appear under their database with the same label.',
    '',
    `Load comes from autocannon in the parent process, over mutual TLS with keep-alive connections. POST /v2/cob allows 500 req/s per application, so the production pixd gets ${s.applications} applications (the demo one from credentials.json and ${s.applications - 1} created through the operator API; the sandbox pixd ${s.connections}), each with its own client certificate and bearer token, connections spread over them in turn: no run is limited by 429s. Only responses with the expected status (201 for POST, 200 for GET and echo) count as throughput, and latency percentiles are computed from those responses' own times; anything else is listed as "other responses".`,
    '',
    `- **max** runs: ${s.connections} connections, each sending its next request as soon as the previous answer arrives, for ${s.durationS} s. Echo, POST /v2/cob and settlement are also run at ${s.saturationConnections} connections (workers, for settlement): a server's max throughput is the better of its two medians, and each goal share is a max over a max. Echo needs no more than ${s.connections} connections (the load generator, one process, is then its limit), but pixd does: at ${s.connections} its event loop is idle part of the time while a create statement is in PostgreSQL, and more connections in flight fill those gaps and fill the shared statements (group commit) with more charges.`,
    `- **${s.ratePerSecond} req/s offered**: one connection per application for ${s.connections} applications, ${s.connections} autocannon instances with \`overallRate\` ${Math.round(s.ratePerSecond / s.connections)} each, started ${Math.round(1000 / s.connections)} ms apart. autocannon paces a rate as a burst at the start of each second per connection; staggering the instances spreads those bursts so requests arrive through the second. Latencies are not corrected for coordinated omission (autocannon 9's correction uses a 1 ms interval whatever the rate); the achieved rate shows whether the server kept up.`,
    `- Request body: \`{"calendario":{"expiracao":3600},"valor":{"original":"12.34"},"chave":"<the application's key>"}\` (echo gets the same body and headers, with a dummy bearer token). GET /v2/cob/:txid reads a charge created by the same application before the run.`,
    `- **Settlement** (sandbox pixd): each iteration is a pair of dependent requests by one application, POST /v2/cob with the body above (12.34, above the sandbox auto-payer's 10.00, so nothing else pays it) and then POST /sandbox/pix/pay \`{"txid": "<its txid>"}\` (payment, ledger entry and webhook event in one transaction, through the payment engine). autocannon runs the pairs as it runs POST /v2/cob: ${s.connections} connections (and ${s.saturationConnections} in \`settlement-saturated\`), connection i on application i mod ${s.applications}, each sending the two as a request sequence, the pay built from the create's answer (a failed create starts the pair over). Throughput is successful pairs (settlements) per second and latency is the whole pair's, from building its create to its pay's answer; CPU columns are per pair. After every run (and warm-up), each application's received Pix are counted (GET /v2/pix over 2000–2100, \`paginacao.itensPorPagina=1\`, \`quantidadeTotalDeItens\`) and must have grown by its successful pairs plus at most one per connection of its own (a pay in flight when autocannon stopped: settled, its answer dropped); anything else is listed under other responses as "received Pix ≠ paid".`,
    `- **GET /v2/pix** (sandbox pixd): before the first run each application receives ${PIX_SEEDED_PER_APPLICATION} Pix through the same create-and-pay flow; the runs then ask for \`inicio\`/\`fim\` covering exactly those (from the first payment's \`horario\` to 1 ms past the last), default page of 100, with autocannon like GET /v2/cob/:txid. The settlement runs add Pix outside that range, so the table grows but the answer does not.`,
    `- **Sends** (sandbox pixd, bench/scenarios/send.ts): ${s.connections} accounts created for the scenario, each with a Pix webhook on its key at a local mutual-TLS receiver (a child process; registration does the handshake, the sandbox pixd trusts the receiver's CA through NODE_EXTRA_CA_CERTS) and a balance paid in through POST /sandbox/pix/pay. One worker per account sends PUT /v2/gn/pix/:idEnvio \`{"valor":"0.01", ...}\` as soon as the previous answer came, until the run's time is up: \`send-transfer\` to the key of another account created for it (the settlement pays it through the payment engine), \`send-external\` to a key of no account here (the sandbox's other institution confirms it). The run then polls GET /v2/gn/pix/enviados?status=EM_PROCESSAMENTO over its own sends until none is left and counts its REALIZADO ones: throughput is REALIZADO sends over the time from the first request to the last settlement (a backlog left when the requests stop counts against it); latency is from each request to the receiver reading its outcome callback. A send that is not REALIZADO, or without a callback within 30 s, is listed under other responses.`,
    "- **CPU µs/req** is the CPU time (user + system, from /proc) the server process used during the run divided by the responses it gave; **busy** is that CPU time over the wall time, so about 100 % means the server's event loop kept one core saturated (it can go past 100 %: garbage collection and libuv's thread pool, where WebCrypto runs, use other threads). For PostgreSQL, the CPU of the client backends serving the bench database is shown separately (autovacuum and the WAL writer are not counted); with PGlite the database runs inside the pixd process and is included. CPU per request moves less with the machine's noise than req/s do, but it is not immune: a busy host inflates it too (cache contention, and time the hypervisor takes back is charged to whichever process was running).",
    `- Each scenario gets ${s.warmupS} s of unrecorded warm-up on each target before its first measurement. Repeats go round all targets and scenarios in turn, so drift in the machine's load spreads over all of them. Tables show the median of the ${s.repeats} runs.`,
  ];
}

function ceilingSection(input: ReportInput): string[] {
  const runs = ECHO_RUNS.map((id) => find(input, id, 'echo')).filter(
    (record): record is ScenarioResult => record !== undefined,
  );
  if (!runs.length) return ['## Ceiling', '', 'The echo target was not run.'];
  const rows = runs.map((echo) => {
    const e = summarise(echo);
    return `| ${echo.scenario.load(input.settings)} | ${rpsWithRange(e)} | ${ms(e.p50Ms)} | ${ms(e.p99Ms)} | ${us(e.serverCpuUs)} | ${pct(e.serverBusy)} | ${e.unexpected} |`;
  });
  return [
    '## Ceiling: echo',
    '',
    `The ceiling is the best of these medians: ${rps(echoCeiling(input))} req/s.`,
    '',
    '| Load | req/s (min–max) | p50 ms | p99 ms | server CPU µs/req | server busy | other responses |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows,
  ];
}

function databaseSection(input: ReportInput, target: TargetId): string[] {
  const label = input.labels[target];
  const skipped =
    input.skipped.find((s) => s.target === target && s.environment !== 'sandbox') ??
    input.skipped.find((s) => s.target === target);
  if (!label)
    return [
      `## pixd + ${target === 'postgres' ? 'PostgreSQL' : 'PGlite'}`,
      '',
      skipped ? `Not measured: ${skipped.reason}` : 'Not run.',
    ];
  const ceiling = echoCeiling(input);
  const rows = input.records
    .filter((r) => r.target === target)
    .map((record) => {
      const s = summarise(record);
      const share = record.scenario.mode === 'max' && !record.scenario.unit ? pct(s.okPerSecond / ceiling) : '—';
      const database = target === 'postgres' ? ` ${us(s.databaseCpuUs)} |` : '';
      return `| ${record.scenario.title} | ${record.scenario.load(input.settings)} | ${rpsWithRange(s)}${unitSuffix(record.scenario)} | ${ms(s.p50Ms)} | ${ms(s.p99Ms)} | ${share} | ${us(s.serverCpuUs)} | ${pct(s.serverBusy)} |${database} ${s.unexpected} |`;
    });
  const header =
    target === 'postgres'
      ? [
          '| Request | Load | 2xx req/s (min–max) | p50 ms | p99 ms | of echo | pixd CPU µs/req | pixd busy | PostgreSQL CPU µs/req | other responses |',
          '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
        ]
      : [
          '| Request | Load | 2xx req/s (min–max) | p50 ms | p99 ms | of echo | pixd CPU µs/req (database included) | pixd busy | other responses |',
          '|---|---|---:|---:|---:|---:|---:|---:|---|',
        ];
  const notStarted = input.skipped
    .filter((s) => s.target === target && s.environment === 'sandbox')
    .map((s) => `Sandbox pixd (for the sandbox scenarios) not started: ${s.reason}`);
  return [`## ${label}`, '', ...header, ...rows, ...(notStarted.length ? ['', ...notStarted] : [])];
}

function goalsSection(input: ReportInput): string[] {
  const echo = best(input, ECHO_RUNS, 'echo');
  const rows: string[] = [];
  for (const target of ['postgres', 'pglite'] as TargetId[]) {
    const label = input.labels[target];
    if (!label) continue;
    const create = best(input, CREATE_MAX_RUNS, target);
    if (create && echo) {
      const share = create.summary.okPerSecond / echo.summary.okPerSecond;
      const how = `${rps(create.summary.okPerSecond)} req/s at ${create.record.scenario.load(input.settings)} ÷ echo's ${rps(echo.summary.okPerSecond)} at ${echo.record.scenario.load(input.settings)}`;
      rows.push(
        `| POST /v2/cob max req/s ÷ echo max req/s (${how}), ${label} | ${pct(share)} | ≥ ${pct(GOALS.createShareOfEchoMin)} | ${verdict(share >= GOALS.createShareOfEchoMin, target)} |`,
      );
    }
    const atRate = find(input, 'cob-create-rate', target);
    if (atRate) {
      const s = summarise(atRate);
      rows.push(
        `| POST /v2/cob p99 at ${input.settings.ratePerSecond} req/s offered (${rps(s.okPerSecond)} achieved), ${label} | ${ms(s.p99Ms)} ms | ≤ ${GOALS.createP99AtRateMaxMs} ms | ${verdict(s.p99Ms <= GOALS.createP99AtRateMaxMs, target)} |`,
      );
    }
    rows.push(...settlementGoals(input, target, label, create?.summary.okPerSecond));
  }
  if (!rows.length) return [];
  return [
    '## Goals',
    '',
    'The goals are set for PostgreSQL; PGlite is shown against the same numbers for reference.',
    '',
    '| Measure | Result | Goal | Met |',
    '|---|---:|---:|---|',
    ...rows,
  ];
}

/** Issues 11 and 14: settlement against creates, the Pix list, and sends against settlement, same run. */
function settlementGoals(input: ReportInput, target: TargetId, label: string, createMax: number | undefined): string[] {
  const rows: string[] = [];
  // Max against max: each the better of its runs at BENCH_CONNECTIONS and BENCH_SATURATION_CONNECTIONS.
  const settlementMax = best(input, SETTLEMENT_MAX_RUNS, target);
  if (settlementMax && createMax !== undefined) {
    const share = settlementMax.summary.okPerSecond / createMax;
    const how = `${rps(settlementMax.summary.okPerSecond)} pairs/s at ${settlementMax.record.scenario.load(input.settings)} ÷ ${rps(createMax)}`;
    rows.push(
      `| settlement max pairs/s ÷ POST /v2/cob max req/s (${how}), ${label} | ${pct(share)} | ≥ ${pct(GOALS.settlementShareOfCreateMin)} | ${verdict(share >= GOALS.settlementShareOfCreateMin, target)} |`,
    );
  }
  // Sends run one worker per account (BENCH_CONNECTIONS): they are set against settlement at the same count.
  const settlement = find(input, 'settlement', target);
  const pairs = settlement && summarise(settlement).okPerSecond;
  const list = find(input, 'pix-list', target);
  if (list) {
    const perSecond = summarise(list).okPerSecond;
    rows.push(
      `| GET /v2/pix, page of 100, req/s, ${label} | ${rps(perSecond)} | ≥ ${rps(GOALS.pixListMinPerSecond)} | ${verdict(perSecond >= GOALS.pixListMinPerSecond, target)} |`,
    );
  }
  for (const id of ['send-transfer', 'send-external']) {
    const send = find(input, id, target);
    if (!send || pairs === undefined) continue;
    const sends = summarise(send).okPerSecond;
    const share = sends / pairs;
    rows.push(
      `| ${id}: sends REALIZADO/s ÷ settlement pairs/s (${rps(sends)} ÷ ${rps(pairs)}), ${label} | ${pct(share)} | ≥ ${pct(GOALS.sendShareOfSettlementMin)} | ${verdict(share >= GOALS.sendShareOfSettlementMin, target)} |`,
    );
  }
  return rows;
}

const verdict = (met: boolean, target: TargetId) =>
  met ? 'yes' : target === 'postgres' ? '**no**' : 'no (reference only)';

function allRunsSection(input: ReportInput): string[] {
  const rows = input.records.flatMap((record) =>
    record.runs.map((run, i) => {
      const statuses =
        Object.entries(run.statuses)
          .map(([status, count]) => `${status} × ${count}`)
          .join(', ') || 'none';
      const busy =
        pct(run.serverCpuS / run.wallS) + (run.databaseCpuS ? ` + ${pct(run.databaseCpuS / run.wallS)}` : '');
      return `| ${input.labels[record.target]} | ${record.scenario.title}, ${record.scenario.load(input.settings)} | ${i + 1} | ${rps(run.okPerSecond)}${unitSuffix(record.scenario)} | ${ms(run.p50Ms)} | ${ms(run.p99Ms)} | ${busy} | ${statuses}${run.errors ? `, no response × ${run.errors}` : ''} |`;
    }),
  );
  return [
    '## Every run',
    '',
    '"CPU" is the server\'s busy share of one core, plus PostgreSQL\'s backends where they apply.',
    '',
    '| Target | Scenario | Run | 2xx req/s | p50 ms | p99 ms | CPU | responses |',
    '|---|---|---:|---:|---:|---:|---:|---|',
    ...rows,
  ];
}

function howToRunSection(): string[] {
  return [
    '## How to run',
    '',
    '```sh',
    'npm run bench                                  # echo, PGlite and PostgreSQL; writes docs/performance.md',
    'BENCH_DURATION_S=5 BENCH_REPEATS=1 npm run bench   # a quick look',
    'BENCH_TARGETS=echo,postgres BENCH_SCENARIOS=cob-create npm run bench',
    '```',
    '',
    'PostgreSQL must accept `postgres://postgres@127.0.0.1:5432/postgres` (or set `BENCH_PG_URL`); the bench creates and drops its own database. If it cannot connect, the PostgreSQL section says so and the rest still runs.',
    '',
    '| Variable | Default | Meaning |',
    '|---|---|---|',
    '| `BENCH_DURATION_S` | 10 | seconds per measured run |',
    '| `BENCH_REPEATS` | 3 | measured runs per scenario and target (tables show medians) |',
    "| `BENCH_WARMUP_S` | 2 | unrecorded seconds before a scenario's first run on a target (0 to skip) |",
    '| `BENCH_CONNECTIONS` | 10 | connections of max runs and of the fixed-rate run; applications of the sandbox pixd |',
    '| `BENCH_SATURATION_CONNECTIONS` | 64 | connections of the second max run of echo and POST /v2/cob |',
    '| `BENCH_APPLICATIONS` | 20 | applications of the production pixd (at least `BENCH_CONNECTIONS`) |',
    '| `BENCH_RATE` | 500 | offered req/s of the fixed-rate run |',
    '| `BENCH_TARGETS` | echo,pglite,postgres | targets to start |',
    '| `BENCH_SCENARIOS` | all | scenario ids (substring match): echo, echo-saturated, cob-create, cob-create-saturated, cob-read, cob-create-rate, spi-inbound, spi-inbound-saturated, settlement, settlement-saturated, pix-list, send-transfer, send-external, lotecobv |',
    '| `BENCH_PG_URL` | postgres://postgres@127.0.0.1:5432/postgres | PostgreSQL server for the fresh database |',
    '| `BENCH_OUTPUT` | docs/performance.md | report file |',
    '| `BENCH_CODE_VERSION` | git commit of the checkout | what the report says was measured |',
    '| `BENCH_CHILD_NODE_ARGS` | none | extra node flags for the server processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile pixd under load |',
    '',
    'A new scenario (settlement throughput, GET /v2/pix, webhook delivery...) is a module in `bench/scenarios/` exporting a `Scenario` (fixtures + load plan), listed in `bench/scenarios/index.ts`.',
  ];
}

function keptNotes(file: string): string {
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const start = previous.indexOf(NOTES_START);
  const end = previous.indexOf(NOTES_END);
  const notes = start >= 0 && end > start ? previous.slice(start + NOTES_START.length, end).trim() : '_No notes yet._';
  return [NOTES_START, '', notes, '', NOTES_END].join('\n');
}

export function writeReport(input: ReportInput): string {
  const file = path.resolve(input.settings.output);
  const sections = [
    [
      '# Performance',
      '',
      `Generated by \`npm run bench\` on ${input.machine.date}. Numbers are medians of ${input.settings.repeats} run(s); see "Every run" for the spread.`,
    ],
    machineSection(input),
    goalsSection(input),
    ceilingSection(input),
    databaseSection(input, 'postgres'),
    databaseSection(input, 'pglite'),
    ledgerSection(input),
    ['## Notes', '', keptNotes(file)],
    methodSection(input),
    howToRunSection(),
    allRunsSection(input),
  ].filter((s) => s.length);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, sections.map((s) => s.join('\n')).join('\n\n') + '\n');
  return file;
}
