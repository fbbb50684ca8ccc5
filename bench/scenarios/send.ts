/**
 * Money out (issue 14, item 9): sends by key that settle REALIZADO, per second, beside the settlement rate of
 * incoming payments on the same target (goal: at least half of it).
 *
 * - `send-transfer`: each sender pays 0.01 to the key of another account of this pixd, so the settlement is
 *   the heavier path: the payer's hold leaves and the receiver is paid through the payment engine (received
 *   Pix, ledger, report line) in one transaction.
 * - `send-external`: the same to a key of no account here, which the sandbox's simulated other institution
 *   confirms (0.01–10.00 → REALIZADO).
 *
 * Fixtures (before the first run, on the sandbox pixd): `connections` new accounts as senders (and as many as
 * receivers for transfers), created for this scenario so their webhooks do not add deliveries to the
 * settlement runs of the shared applications. Each sender's key gets a Pix webhook at a local mutual-TLS
 * receiver (a child process; registration does the handshake, pixd trusts the receiver's CA through
 * NODE_EXTRA_CA_CERTS, bench/receiver.ts), and a balance paid in through POST /sandbox/pix/pay.
 *
 * A run: one worker per sender, PUT /v2/gn/pix/:idEnvio (a fresh id each time) as soon as the previous answer
 * came (the row lock serialises an account's sends anyway), until the run's time is up. The requests answer
 * 201 EM_PROCESSAMENTO and the outbox settles them; the run then waits until no send of the run is
 * EM_PROCESSAMENTO (GET /v2/gn/pix/enviados?status=EM_PROCESSAMENTO, polled) and counts the REALIZADO ones
 * (same list, status=REALIZADO, over exactly the run's sends). Throughput is REALIZADO sends over the time
 * from the first request to the moment the last one settled, so a backlog the settlement had not worked off
 * when the requests stopped counts against it. Latency is each send's, from its request to the receiver
 * reading its outcome callback. A send of the run that is not REALIZADO, or missing from the list, shows in
 * "other responses".
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Measurement } from '../load.ts';
import type { Party, Target } from '../targets.ts';
import { onCleanup, runWorkers, throwIfInterrupted } from '../lifecycle.ts';
import { percentile } from '../stats.ts';
import { type PartyClient, clientsFor } from '../party-client.ts';
import { startReceiver, type Receiver } from '../receiver.ts';
import { PIXD_TARGETS, type Scenario } from './scenario.ts';

/** Each send: within the sandbox's REALIZADO range for the other institution. */
const SEND_AMOUNT = '0.01';
/** Paid into each sender before the first run: 100,000 sends of 0.01, more than any run makes. */
const SENDER_FUNDS = '1000.00';
/** A key of no account here (a random key's shape): the sandbox's other institution receives it. */
const EXTERNAL_KEY = '3f2c9a1e-7b4d-4c8e-9f10-2a6b5c7d8e9f';
/** Upper bound on sends in one run, whatever the duration: keeps a runaway loop (errors) bounded. */
const MAX_SENDS_PER_RUN = 100_000;
/** After a connection error, a worker waits this long before its next send. */
const ERROR_BACKOFF_MS = 100;
/** How often the run asks whether its sends have settled. */
const SETTLED_POLL_MS = 50;
/** Sends still EM_PROCESSAMENTO this long after the last request: the run stops waiting and reports them. */
const SETTLE_TIMEOUT_MS = 60_000;
/** Once settled, how long the outcome callbacks may take to reach the receiver before they count as missing. */
const CALLBACK_TIMEOUT_MS = 30_000;

type Destination = 'transfer' | 'external';

interface Fixture {
  senders: PartyClient[];
  /** Receiving key of sender i. */
  destinations: string[];
  receiver: Receiver;
}

let runNumber = 0;

async function prepare(target: Target, workers: number, destination: Destination): Promise<Fixture> {
  if (!target.addParties) throw new Error(`${target.id}: cannot create accounts for the send bench`);
  const receiver = await startReceiver(target.parties[0].tls.ca);
  onCleanup(async () => receiver.kill());
  const senderParties = await target.addParties(workers, `Bench ${destination} sender`);
  const receiverParties: Party[] =
    destination === 'transfer' ? await target.addParties(workers, `Bench ${destination} receiver`) : [];
  const senders = clientsFor({ url: target.url, parties: senderParties }, 1);
  await Promise.all(
    senders.map(async (client) => {
      const chave = encodeURIComponent(client.party.chave);
      const webhook = await client.call(
        'PUT',
        `/v2/webhook/${chave}`,
        JSON.stringify({ webhookUrl: `${receiver.url}/send` }),
      );
      if (webhook.status !== 201)
        throw new Error(`register webhook: ${webhook.status} ${JSON.stringify(webhook.body)}`);
      const funds = await client.call(
        'POST',
        '/sandbox/pix/pay',
        JSON.stringify({ chave: client.party.chave, valor: SENDER_FUNDS }),
      );
      if (funds.status !== 201) throw new Error(`fund sender: ${funds.status} ${JSON.stringify(funds.body)}`);
    }),
  );
  const destinations = senders.map((_, i) => (destination === 'transfer' ? receiverParties[i].chave : EXTERNAL_KEY));
  return { senders, destinations, receiver };
}

function sendBody(payer: Party, chave: string): string {
  return JSON.stringify({ valor: SEND_AMOUNT, pagador: { chave: payer.chave }, favorecido: { chave } });
}

/** Sends of `client` in [inicio, fim] with this status: quantidadeTotalDeItens of a one-item page. */
async function countSent(client: PartyClient, range: { inicio: string; fim: string }, status: string) {
  const query = `inicio=${encodeURIComponent(range.inicio)}&fim=${encodeURIComponent(range.fim)}&status=${status}&paginacao.itensPorPagina=1`;
  const reply = await client.call('GET', `/v2/gn/pix/enviados?${query}`);
  const total = reply.body?.parametros?.paginacao?.quantidadeTotalDeItens;
  if (reply.status !== 200 || typeof total !== 'number')
    throw new Error(
      `GET /v2/gn/pix/enviados: expected 200 with a total, got ${reply.status} ${JSON.stringify(reply.body)}`,
    );
  return total;
}

async function sendFor(fixture: Fixture, durationS: number): Promise<Measurement> {
  const { senders, destinations, receiver } = fixture;
  const run = ++runNumber;
  const statuses: Record<string, number> = {};
  /** endToEndId → when its request started (wall clock, to compare with the receiver's receipts). */
  const requested = new Map<string, number>();
  const accepted = senders.map(() => 0);
  const times: number[] = [];
  const bodies = senders.map((client, k) => sendBody(client.party, destinations[k]));
  let errors = 0;
  const t0 = performance.now();
  await runWorkers(senders.length, { durationS, maxSteps: MAX_SENDS_PER_RUN }, async (k, n) => {
    const client = senders[k];
    const at = performance.timeOrigin + performance.now();
    try {
      const reply = await client.call('PUT', `/v2/gn/pix/b${run}w${k}n${n}`, bodies[k]);
      if (reply.status === 201 && reply.body?.status === 'EM_PROCESSAMENTO') {
        accepted[k]++;
        requested.set(reply.body.e2eId, at);
        times.push(Date.parse(reply.body.horario.solicitacao));
      } else {
        const why = `${reply.status} ${reply.body?.nome ?? reply.body?.status ?? ''}`.trim();
        statuses[why] = (statuses[why] ?? 0) + 1;
      }
    } catch {
      errors++;
      await sleep(ERROR_BACKOFF_MS);
    }
  });
  const requestsEnded = performance.now();
  throwIfInterrupted();
  if (!times.length) return { expectStatus: 201, okPerSecond: 0, p50Ms: NaN, p99Ms: NaN, ok: 0, statuses, errors };

  // horario has millisecond precision: fim is one millisecond past the last send's.
  const range = {
    inicio: new Date(Math.min(...times)).toISOString(),
    fim: new Date(Math.max(...times) + 1).toISOString(),
  };
  let pending = Infinity;
  while (pending > 0 && performance.now() - requestsEnded < SETTLE_TIMEOUT_MS) {
    pending = (await Promise.all(senders.map((c) => countSent(c, range, 'EM_PROCESSAMENTO')))).reduce((a, b) => a + b);
    if (pending > 0) await sleep(SETTLED_POLL_MS);
  }
  const settledAt = performance.now();
  const realizado = await Promise.all(senders.map((c) => countSent(c, range, 'REALIZADO')));
  const done = realizado.reduce((a, b) => a + b, 0);
  const total = accepted.reduce((a, b) => a + b, 0);
  if (pending > 0) statuses['still EM_PROCESSAMENTO'] = pending;
  const off = senders.map((_, k) => accepted[k] - realizado[k]);
  const otherOutcome = off.reduce((a, d) => a + Math.abs(d), 0) - Math.max(pending, 0);
  if (otherOutcome > 0) statuses['201 but not REALIZADO'] = otherOutcome;
  statuses['201'] = done;

  // Latency: request to outcome callback read by the receiver (pixd's webhook lanes deliver after settling).
  const latencies: number[] = [];
  const callbacksBy = performance.now() + CALLBACK_TIMEOUT_MS;
  for (;;) {
    const { receipts } = await receiver.report();
    latencies.length = 0;
    for (const [e2e, at] of requested) {
      const first = receipts[e2e]?.[0];
      if (first !== undefined) latencies.push(first - at);
    }
    if (latencies.length >= total || performance.now() > callbacksBy) break;
    await sleep(SETTLED_POLL_MS);
  }
  if (latencies.length < total) statuses['no outcome callback'] = total - latencies.length;
  process.stderr.write(
    `bench: send: ${total} accepted, ${done} REALIZADO, the last settled ${Math.round(settledAt - requestsEnded)} ms after the last request; ${latencies.length} outcome callbacks\n`,
  );
  const sorted = Float64Array.from(latencies).sort();
  return {
    expectStatus: 201,
    okPerSecond: done / ((settledAt - t0) / 1000),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ok: done,
    statuses,
    errors,
  };
}

function sendScenario(destination: Destination): Scenario {
  const to =
    destination === 'transfer'
      ? "another pixd account's key"
      : "the sandbox's other institution (a key of no account here)";
  return {
    id: `send-${destination}`,
    mode: 'max',
    title: `sends: PUT /v2/gn/pix/:idEnvio 0.01 to ${to}, until REALIZADO`,
    unit: 'sends',
    load: (s) => `max, ${s.connections} senders, one send at a time each`,
    targets: PIXD_TARGETS,
    environment: 'sandbox',
    async plan(target, s) {
      const fixture = await prepare(target, s.connections, destination);
      return {
        url: target.url,
        durationS: s.durationS,
        expectStatus: 201,
        connections: [],
        run: (durationS) => sendFor(fixture, durationS),
      };
    },
  };
}

export const sendTransfer = sendScenario('transfer');
export const sendExternal = sendScenario('external');
