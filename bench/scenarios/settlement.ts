/**
 * Settlement through the payment engine, and the read path of what it produces (issue 3's benchmark).
 *
 * - `settlement`, `settlement-saturated`: end-to-end settlements per second. Each iteration is a pair of
 *   dependent requests by one application: POST /v2/cob (12.34, above the sandbox auto-payer's 10.00, so
 *   nothing else pays it), then POST /sandbox/pix/pay {txid} (payment, ledger entry and webhook event in one
 *   transaction). autocannon runs them, as it runs POST /v2/cob alone: each connection sends the pair as a
 *   request sequence, the pay built from the create's answer, over its application's mutual-TLS identity —
 *   BENCH_CONNECTIONS connections (`settlement`) or BENCH_SATURATION_CONNECTIONS (`settlement-saturated`),
 *   connection i on application i mod n. (Until session 10 a loop of `node:https` requests drove the pairs:
 *   at 64 workers it took about 0.55 of this machine's two cores, about 226 µs per pair, against about 28 µs
 *   per request for autocannon, and that CPU was taken from the server under test.) Throughput is pairs/s,
 *   latency is the pair's. After every run (warm-up included) each application's received Pix are counted
 *   (GET /v2/pix, quantidadeTotalDeItens over a wide range) and must have grown by its successful pairs, plus
 *   at most one per connection (a pay in flight when autocannon stopped, settled but its answer dropped); a
 *   shortfall or excess shows in the report as "received Pix ≠ paid".
 * - `pix-list`: GET /v2/pix?inicio&fim (default page of 100) with autocannon, after each application has
 *   received PIX_SEEDED_PER_APPLICATION Pix through the same flow; the range covers exactly those.
 *
 * Both need the sandbox routes, so they run against a sandbox pixd (PIXD_ENV=sandbox) started beside the
 * production one on each database.
 */
import { performance } from 'node:perf_hooks';
import { runLoad, type Connection, type Measurement } from '../load.ts';
import type { Target } from '../targets.ts';
import type { Settings } from '../settings.ts';
import { throwIfInterrupted } from '../lifecycle.ts';
import { type PartyClient, clientsFor, listPath } from '../party-client.ts';
import { percentile } from '../stats.ts';
import { PIXD_TARGETS, cobBody, jsonRequest, spreadOverParties, type Scenario } from './scenario.ts';

/** Received Pix each application has before the GET /v2/pix runs. */
export const PIX_SEEDED_PER_APPLICATION = 200;
/** The amount POST /v2/cob asks (cobBody); the payment must carry it. */
const AMOUNT = '12.34';

type PairOutcome = { ok: true; horario: string } | { ok: false; why: string };

/** Why the pay of charge `txid` is not a success (its outcome's `why`), or undefined when it is. */
function payFailure(txid: unknown, status: number, body: any): string | undefined {
  if (status !== 201) return `pay ${status}`;
  if (body?.txid !== txid || body?.valor !== AMOUNT) return 'pay 201 for another charge or amount';
  return undefined;
}

/** POST /v2/cob, then pay that charge. Throws when a request gets no answer. */
async function createAndPay(client: PartyClient): Promise<PairOutcome> {
  const cob = await client.call('POST', '/v2/cob', cobBody(client.party.chave));
  if (cob.status !== 201 || typeof cob.body?.txid !== 'string') return { ok: false, why: `cob ${cob.status}` };
  const pay = await client.call('POST', '/sandbox/pix/pay', JSON.stringify({ txid: cob.body.txid }));
  const why = payFailure(cob.body.txid, pay.status, pay.body);
  return why ? { ok: false, why } : { ok: true, horario: pay.body.horario };
}

/** A run's pairs, counted by the requests' own callbacks (bench/load.ts runs them as autocannon sequences). */
interface PairTally {
  paidBy: number[];
  latencies: number[];
  statuses: Record<string, number>;
}

/**
 * One connection's create-then-pay sequence for application `k`: the pay is built from the create's answer (its
 * txid), and a failed create starts the pair over. Each connection needs a sequence of its own: autocannon keeps
 * the request it built on the request object. A pair's latency runs from building its create to its pay's answer.
 */
function pairSequence(target: Target, k: number, tally: PairTally): Connection {
  const party = target.parties[k];
  const count = (why: string) => void (tally.statuses[why] = (tally.statuses[why] ?? 0) + 1);
  const create = jsonRequest('POST', '/v2/cob', party, cobBody(party.chave));
  const pay = jsonRequest('POST', '/sandbox/pix/pay', party, '');
  return {
    tls: party.tls,
    request: create,
    sequence: [
      {
        ...create,
        setupRequest: (request, context) => {
          context.startedAt = performance.now();
          return request;
        },
        onResponse: (status, body, context) => {
          if (status !== 201) return count(`cob ${status}`);
          context.txid = JSON.parse(body).txid;
        },
      },
      {
        ...pay,
        setupRequest: (request, context) =>
          typeof context.txid === 'string' ? { ...request, body: JSON.stringify({ txid: context.txid }) } : undefined,
        onResponse: (status, body, context) => {
          const why = payFailure(context.txid, status, status === 201 ? JSON.parse(body) : undefined);
          if (why) return count(why);
          tally.paidBy[k]++;
          count('201');
          tally.latencies.push(performance.now() - (context.startedAt as number));
        },
      },
    ],
  };
}

/**
 * `workers` connections, connection i on application i mod n, each creating and paying one pair after another
 * until `durationS` is up. Then checks each application's received Pix against its successful pairs.
 */
async function settle(
  target: Target,
  clients: PartyClient[],
  workers: number,
  durationS: number,
): Promise<Measurement> {
  const before = await Promise.all(clients.map((c) => c.receivedCount()));
  const tally: PairTally = { paidBy: clients.map(() => 0), latencies: [], statuses: {} };
  const started = performance.now();
  const load = await runLoad({
    url: target.url,
    durationS,
    expectStatus: 201,
    connections: Array.from({ length: workers }, (_, i) => pairSequence(target, i % clients.length, tally)),
  });
  const elapsedS = (performance.now() - started) / 1000;
  throwIfInterrupted();

  const after = await Promise.all(clients.map((c) => c.receivedCount()));
  const received = after.reduce((sum, n, k) => sum + n - before[k], 0);
  const paid = tally.paidBy.reduce((sum, n) => sum + n, 0);
  // autocannon stops with a request in flight on some connections and drops its answer: a pay the server went
  // on to settle is received but not counted paid. So each application may have received up to one Pix more
  // per connection of its own; anything else (fewer, or more) is a wrong outcome.
  const connectionsOf = (k: number) => Math.ceil((workers - k) / clients.length);
  const off = clients.map((_, k) => after[k] - before[k] - tally.paidBy[k]);
  const wrong = off.map((d, k) => (d < 0 ? -d : Math.max(0, d - connectionsOf(k))));
  if (wrong.some((d) => d !== 0)) {
    tally.statuses['received Pix ≠ paid'] = wrong.reduce((sum, d) => sum + d, 0);
    process.stderr.write(
      `bench: settlement: received Pix do not match paid pairs (per application, received − paid: ${off.join(', ')}; ${load.errors} request(s) without an answer)\n`,
    );
  } else {
    process.stderr.write(
      `bench: settlement: verified ${received} received Pix = ${paid} paid pairs + ${received - paid} paid as the run stopped\n`,
    );
  }
  const sorted = Float64Array.from(tally.latencies).sort();
  return {
    expectStatus: 201,
    okPerSecond: paid / elapsedS,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ok: paid,
    statuses: tally.statuses,
    errors: load.errors,
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
      // For the received-Pix counts around each run; the pairs themselves go through autocannon.
      const clients = clientsFor(target, 1);
      return {
        url: target.url,
        durationS: s.durationS,
        expectStatus: 201,
        connections: [],
        run: (durationS) => settle(target, clients, workers(s), durationS),
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
