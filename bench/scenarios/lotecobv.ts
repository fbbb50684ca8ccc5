/**
 * Batches of due charges (issue 5's benchmark): how long a batch of 1000 due charges takes to be fully
 * processed, end to end through the API. Goal: under 2 s on PostgreSQL.
 *
 * One application, one batch at a time: PUT /v2/lotecobv/:id with 1000 fresh items (shaped like Bacen's
 * loteCobVBody1, with multa and juros), then GET /v2/lotecobv/:id every POLL_MS until no item is
 * EM_PROCESSAMENTO; every item must then be CRIADA. The time counted is from sending the PUT to that GET's
 * answer, so it includes the 202, the outbox job, at most one poll interval and the GET of 1000 items.
 * Throughput is batches per second (× 1000 for charges); CPU columns are per batch.
 *
 * Besides the report's tables, the runs' batch times go to a section of their own between the lotecobv
 * markers inside the notes block of the report file, which the main bench keeps when it rewrites the file.
 */
import https from 'node:https';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Measurement } from '../load.ts';
import type { Settings } from '../settings.ts';
import type { Party, Target } from '../targets.ts';
import { onCleanup, throwIfInterrupted } from '../lifecycle.ts';
import { percentile } from '../stats.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { PIXD_TARGETS, type Scenario } from './scenario.ts';
import { writeNotesSection } from '../notes-section.ts';

const ITEMS = LIMITS.lotecobvItemsMax;
/** Goal of issue 5: a 1000-item batch fully processed in under this, on PostgreSQL. */
export const LOTECOBV_GOAL_MS = 2000;
/** Between GETs of the batch: the resolution of the measured time. */
const POLL_MS = 25;
/** A batch not decided in this long counts as failed ("no response"). */
const BATCH_TIMEOUT_MS = 60_000;
const ERROR_BACKOFF_MS = 100;

/** Keep-alive mutual-TLS JSON calls of one application. */
function client(target: Target, party: Party) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ...party.tls });
  onCleanup(async () => agent.destroy());
  return (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${party.token}` };
    if (payload !== undefined)
      Object.assign(headers, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(payload)),
      });
    return new Promise((resolve, reject) => {
      const request = https.request(`${target.url}${path}`, { method, headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
          } catch (error) {
            reject(error);
          }
        });
      });
      request.on('error', reject);
      request.end(payload);
    });
  };
}

function batchBody(id: number, chave: string) {
  return {
    descricao: `Bench batch ${id}`,
    cobsv: Array.from({ length: ITEMS }, (_, i) => ({
      calendario: { dataDeVencimento: '2099-12-31', validadeAposVencimento: 30 },
      txid: `L${id}x${String(i).padStart(4, '0')}`.padEnd(32, '0'),
      devedor: {
        logradouro: 'Alameda Souza, Numero 80, Bairro Braz',
        cidade: 'Recife',
        uf: 'PE',
        cep: '70011750',
        cpf: '12345678909',
        nome: 'João Souza',
      },
      valor: {
        original: '123.45',
        multa: { modalidade: 2, valorPerc: '2.00' },
        juros: { modalidade: 2, valorPerc: '0.03' },
      },
      chave,
      solicitacaoPagador: 'Informar matrícula',
    })),
  };
}

interface Samples {
  label: string;
  putMs: number[];
  doneMs: number[];
  failed: number;
}
/** Measured (not warm-up) samples per target, for the notes section. */
const samples = new Map<string, Samples>();

type Outcome = { ok: true; putMs: number; doneMs: number } | { ok: false; why: string };

async function oneBatch(call: ReturnType<typeof client>, id: number, chave: string): Promise<Outcome> {
  const started = performance.now();
  const put = await call('PUT', `/v2/lotecobv/${id}`, batchBody(id, chave));
  const putMs = performance.now() - started;
  if (put.status !== 202) return { ok: false, why: `PUT ${put.status}` };
  while (performance.now() - started < BATCH_TIMEOUT_MS) {
    const read = await call('GET', `/v2/lotecobv/${id}`);
    if (read.status !== 200) return { ok: false, why: `GET ${read.status}` };
    const items: { status: string }[] = read.body.cobsv;
    if (items.every((c) => c.status !== 'EM_PROCESSAMENTO')) {
      const denied = items.filter((c) => c.status !== 'CRIADA').length;
      return denied || items.length !== ITEMS
        ? { ok: false, why: `${denied} NEGADA of ${items.length}` }
        : { ok: true, putMs, doneMs: performance.now() - started };
    }
    await sleep(POLL_MS);
  }
  return { ok: false, why: 'timeout' };
}

async function runBatches(
  call: ReturnType<typeof client>,
  chave: string,
  nextId: () => number,
  durationS: number,
  record?: Samples,
): Promise<Measurement> {
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  // At least one batch per run, whatever the duration.
  do {
    throwIfInterrupted();
    let outcome: Outcome;
    try {
      outcome = await oneBatch(call, nextId(), chave);
    } catch {
      // No answer (or not JSON): counted, and no hot loop against a server that is gone.
      errors++;
      await sleep(ERROR_BACKOFF_MS);
      continue;
    }
    const key = outcome.ok ? '202' : outcome.why;
    statuses[key] = (statuses[key] ?? 0) + 1;
    if (!outcome.ok) {
      if (record) record.failed++;
      continue;
    }
    latencies.push(outcome.doneMs);
    record?.putMs.push(outcome.putMs);
    record?.doneMs.push(outcome.doneMs);
  } while (performance.now() - t0 < durationS * 1000);
  const sorted = Float64Array.from(latencies).sort();
  if (record) writeNotesSection(reportFile, 'lotecobv', section());
  return {
    expectStatus: 202,
    okPerSecond: latencies.length / ((performance.now() - t0) / 1000),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ok: latencies.length,
    statuses,
    errors,
  };
}

let reportFile = 'docs/performance.md';

export const lotecobvProcessing: Scenario = {
  id: 'lotecobv-1000',
  mode: 'max',
  title: `batch of ${ITEMS} due charges: PUT /v2/lotecobv/:id until every item is decided`,
  unit: 'batches',
  load: () => `one batch at a time, one application, polled every ${POLL_MS} ms`,
  targets: PIXD_TARGETS,
  async plan(target: Target, s: Settings) {
    reportFile = s.output;
    const party = target.parties[0];
    const call = client(target, party);
    // Ids unique across runs on this target (the target keeps its data between runs): 13 digits.
    let id = Math.floor(Date.now() / 1000) * 1000;
    const record: Samples = { label: target.label, putMs: [], doneMs: [], failed: 0 };
    samples.set(target.id, record);
    let warmedUp = s.warmupS === 0;
    return {
      url: target.url,
      durationS: s.durationS,
      expectStatus: 202,
      connections: [],
      run: async (durationS: number) => {
        const measured = warmedUp;
        warmedUp = true;
        return runBatches(call, party.chave, () => ++id, durationS, measured ? record : undefined);
      },
    };
  },
};

const ms = (n: number) => (Number.isFinite(n) ? String(Math.round(n)) : 'n/a');

function section(): string {
  const rows = [...samples.values()].map((r) => {
    const done = Float64Array.from(r.doneMs).sort();
    const put = Float64Array.from(r.putMs).sort();
    const postgres = r.label.includes('PostgreSQL');
    const p99 = percentile(done, 99);
    const verdict = !done.length
      ? 'not measured'
      : p99 < LOTECOBV_GOAL_MS && !r.failed
        ? 'yes'
        : postgres
          ? '**no**'
          : 'no (reference only)';
    return `| ${r.label} | ${done.length} | ${r.failed} | ${ms(percentile(put, 50))} | ${ms(percentile(done, 50))} | ${ms(p99)} | ${ms(done.at(-1) ?? NaN)} | ${verdict} |`;
  });
  return [
    '### Batches of due charges (lotecobv)',
    '',
    `Measured by \`BENCH_SCENARIOS=lotecobv npm run bench\` (bench/scenarios/lotecobv.ts) on ${new Date().toISOString()} (${os.cpus().length} cores, Node ${process.version}), pixd in production mode.`,
    `One application sends a batch of ${ITEMS} fresh due charges (PUT /v2/lotecobv/:id, items like Bacen's loteCobVBody1 plus multa and juros), then reads the batch every ${POLL_MS} ms until no item is EM_PROCESSAMENTO and checks all ${ITEMS} are CRIADA; then the next batch, for the run's duration.`,
    '"Processed" runs from sending the PUT to the answer of the GET that shows every item decided: the 202, the outbox job that creates the charges (one transaction, set-based statements), up to one poll interval and the read of 1000 items. Warm-up batches are not counted.',
    '',
    `| Database | batches | failed | PUT 202 p50 ms | processed p50 ms | p99 ms | max ms | under ${LOTECOBV_GOAL_MS} ms (goal on PostgreSQL) |`,
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
    '',
  ].join('\n');
}
