/**
 * Settlement through the payment engine, and the read path of what it produces (issue 3's benchmark).
 *
 * - `settlement`: end-to-end settlements per second. Each iteration is a pair of dependent requests by one
 *   application: POST /v2/cob (12.34, above the sandbox auto-payer's 10.00, so nothing else pays it),
 *   then POST /sandbox/pix/pay {txid} (payment, ledger entry and webhook event in one transaction).
 *   autocannon cannot chain a request on the previous answer, so this runs its own loop: BENCH_CONNECTIONS
 *   workers (`settlement`) or BENCH_SATURATION_CONNECTIONS (`settlement-saturated`), worker i on application
 *   i mod n, over keep-alive mutual-TLS agents, for the run's duration. Throughput is pairs/s, latency
 *   is the pair's. After every run (warm-up included) each application's received Pix are counted
 *   (GET /v2/pix, quantidadeTotalDeItens over a wide range) and must have grown by exactly its successful
 *   pairs; a shortfall or excess shows in the report as "received Pix ≠ paid".
 * - `pix-list`: GET /v2/pix?inicio&fim (default page of 100) with autocannon, after each application has
 *   received PIX_SEEDED_PER_APPLICATION Pix through the same flow; the range covers exactly those.
 *
 * Both need the sandbox routes, so they run against a sandbox pixd (PIXD_ENV=sandbox) started beside the
 * production one on each database.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Measurement } from '../load.ts';
import type { Target } from '../targets.ts';
import type { Settings } from '../settings.ts';
import { runWorkers, throwIfInterrupted } from '../lifecycle.ts';
import { type PartyClient, clientsFor, listPath } from '../party-client.ts';
import { percentile } from '../stats.ts';
import { PIXD_TARGETS, cobBody, jsonRequest, spreadOverParties, type Scenario } from './scenario.ts';

/** Received Pix each application has before the GET /v2/pix runs. */
export const PIX_SEEDED_PER_APPLICATION = 200;
/** Upper bound on pairs in one run, whatever the duration: keeps a runaway loop (errors) bounded. */
const MAX_PAIRS_PER_RUN = 100_000;
/** After a connection error, a worker waits this long before its next pair (no hot loop on a dead server). */
const ERROR_BACKOFF_MS = 100;
/** The amount POST /v2/cob asks (cobBody); the payment must carry it. */
const AMOUNT = '12.34';

type PairOutcome = { ok: true; horario: string } | { ok: false; why: string };

/** POST /v2/cob, then pay that charge. Throws when a request gets no answer. */
async function createAndPay(client: PartyClient): Promise<PairOutcome> {
  const cob = await client.call('POST', '/v2/cob', cobBody(client.party.chave));
  if (cob.status !== 201 || typeof cob.body?.txid !== 'string') return { ok: false, why: `cob ${cob.status}` };
  const pay = await client.call('POST', '/sandbox/pix/pay', JSON.stringify({ txid: cob.body.txid }));
  if (pay.status !== 201) return { ok: false, why: `pay ${pay.status}` };
  if (pay.body?.txid !== cob.body.txid || pay.body?.valor !== AMOUNT)
    return { ok: false, why: 'pay 201 for another charge or amount' };
  return { ok: true, horario: pay.body.horario };
}

/**
 * `workers` concurrent create-and-pay loops (worker i uses application i mod n) until `durationS` is up;
 * pairs in flight at the deadline finish and count. Then checks received Pix against successful pairs.
 */
async function settle(clients: PartyClient[], workers: number, durationS: number): Promise<Measurement> {
  const before = await Promise.all(clients.map((c) => c.receivedCount()));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const paidBy = clients.map(() => 0);
  let errors = 0;
  const t0 = performance.now();
  await runWorkers(workers, { durationS, maxSteps: MAX_PAIRS_PER_RUN }, async (i) => {
    const k = i % clients.length;
    const pairStarted = performance.now();
    let outcome: PairOutcome;
    try {
      outcome = await createAndPay(clients[k]);
    } catch {
      errors++;
      await sleep(ERROR_BACKOFF_MS);
      return;
    }
    if (outcome.ok) {
      latencies.push(performance.now() - pairStarted);
      paidBy[k]++;
      statuses['201'] = (statuses['201'] ?? 0) + 1;
    } else {
      statuses[outcome.why] = (statuses[outcome.why] ?? 0) + 1;
    }
  });
  const elapsedS = (performance.now() - t0) / 1000;
  throwIfInterrupted();

  const after = await Promise.all(clients.map((c) => c.receivedCount()));
  const received = after.reduce((sum, n, k) => sum + n - before[k], 0);
  const paid = paidBy.reduce((sum, n) => sum + n, 0);
  const off = clients.map((_, k) => after[k] - before[k] - paidBy[k]);
  if (off.some((d) => d !== 0)) {
    statuses['received Pix ≠ paid'] = off.reduce((sum, d) => sum + Math.abs(d), 0);
    process.stderr.write(
      `bench: settlement: received Pix do not match paid pairs (per application, received − paid: ${off.join(', ')}; ${errors} pair(s) without an answer)\n`,
    );
  } else {
    process.stderr.write(`bench: settlement: verified ${received} received Pix = ${paid} paid pairs\n`);
  }
  const sorted = Float64Array.from(latencies).sort();
  return {
    expectStatus: 201,
    okPerSecond: paid / elapsedS,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ok: paid,
    statuses,
    errors,
  };
}

/**
 * Settlement at a number of workers, as POST /v2/cob runs at two connection counts: at 10 a worker waits for
 * its create, its read and its write in turn, and the group commits carry a payment or two each; more pairs in
 * flight fill both. Settlement's max is the better of the two (bench/report.ts), as a create's is.
 */
function settlementAt(id: string, workers: (s: Settings) => number): Scenario {
  return {
    id,
    mode: 'max',
    title: 'settlement: POST /v2/cob + POST /sandbox/pix/pay',
    unit: 'pairs',
    load: (s) => `max, ${workers(s)} workers, one pair at a time each`,
    targets: PIXD_TARGETS,
    environment: 'sandbox',
    async plan(target, s) {
      const clients = clientsFor(target, Math.ceil(workers(s) / target.parties.length));
      return {
        url: target.url,
        durationS: s.durationS,
        expectStatus: 201,
        connections: [],
        run: (durationS) => settle(clients, workers(s), durationS),
      };
    },
  };
}

export const settlement = settlementAt('settlement', (s) => s.connections);
export const settlementSaturated = settlementAt('settlement-saturated', (s) => s.saturationConnections);

/** Each application receives PIX_SEEDED_PER_APPLICATION Pix; returns the range that covers exactly them. */
async function seedReceivedPix(target: Target): Promise<{ inicio: string; fim: string }> {
  const clients = clientsFor(target, 1);
  const times: number[] = [];
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < PIX_SEEDED_PER_APPLICATION; i++) {
        throwIfInterrupted();
        const outcome = await createAndPay(client);
        if (!outcome.ok) throw new Error(`seeding received Pix: ${outcome.why}`);
        times.push(Date.parse(outcome.horario));
      }
    }),
  );
  // horario has millisecond precision and received_at microseconds: fim is one millisecond past the last.
  const range = {
    inicio: new Date(Math.min(...times)).toISOString(),
    fim: new Date(Math.max(...times) + 1).toISOString(),
  };
  const counts = await Promise.all(clients.map((c) => c.receivedCount(range)));
  clients.forEach((c) => c.close());
  if (counts.some((n) => n !== PIX_SEEDED_PER_APPLICATION))
    throw new Error(
      `seeding received Pix: expected ${PIX_SEEDED_PER_APPLICATION} per application in ${range.inicio}..${range.fim}, got ${counts.join(', ')}`,
    );
  return range;
}

export const pixList: Scenario = {
  id: 'pix-list',
  mode: 'max',
  title: 'GET /v2/pix?inicio&fim (page of 100)',
  load: (s) => `max, ${s.connections} connections, ${PIX_SEEDED_PER_APPLICATION} Pix per application in range`,
  targets: PIXD_TARGETS,
  environment: 'sandbox',
  async plan(target, s) {
    const range = await seedReceivedPix(target);
    return {
      url: target.url,
      durationS: s.durationS,
      expectStatus: 200,
      connections: await spreadOverParties(target, s.connections, (party) =>
        jsonRequest('GET', listPath(range), party),
      ),
    };
  },
};
