/**
 * Scheduling at scale (issue 15, item 9): 10,000 recurring charges due on one day, the clock moved past it,
 * and the time until every one is CONCLUIDA. Goal: under 20 s on PostgreSQL. Exactly once is checked after:
 * 10,000 received Pix, one per charge, no two for the same charge, and the ledger verifies.
 *
 * Fixtures (not measured) go through the API, concurrently: POST /v2/rec, POST /sandbox/rec/:idRec/aprovar and
 * PUT /v2/cobr/:txid for each charge, due on a business day a few days ahead; then the bench waits for every
 * charge to be ATIVA (acknowledged by the payer's side). The measurement starts with POST
 * /sandbox/clock/advance to the due date (00:00 Brasília, when each charge's `cobr.attempt` job falls due on
 * the account clock) and ends when a count of the charges finds all of them CONCLUIDA (polled every POLL_MS).
 *
 * Standalone: `node --import tsx bench/scenarios/cobr-due-day.ts` (PostgreSQL at BENCH_PG_URL; a fresh database,
 * dropped after). BENCH_COBR_DUE=<n> changes the number of charges.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../src/platform/db/database.ts';
import { brasiliaDate, fromEpochDay, isBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import { describeVerification, verifyLedger } from '../../src/platform/ledger/verify.ts';
import { sandboxOnFreshDatabase } from '../postgres.ts';
import { runIfMain } from '../lifecycle.ts';
import { cpuSeconds, cpuUsedBetween } from '../cpu.ts';
import { describeMachine } from '../machine.ts';
import { writeNotesSection } from '../notes-section.ts';
import { client } from './balance-history.ts';

const SETTINGS = {
  charges: Number(process.env.BENCH_COBR_DUE || 10_000),
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/performance.md',
  /** Requests in flight while the fixtures are made. */
  fixtureConcurrency: 16,
  goalMs: 20_000,
  timeoutMs: 600_000,
};
const POLL_MS = 100;
/** Within the sandbox amount rule (0.01 to 10.00 is paid): every charge settles. */
const AMOUNT = '7.50';
const log = (line: string) => process.stderr.write(`bench cobr-due-day: ${line}\n`);

type Api = ReturnType<typeof client>;

/** One call, retried while rate limited (the fixtures run near the 500 req/s limit of these endpoints). */
async function must(api: Api, status: number, method: string, urlPath: string, body?: unknown) {
  for (;;) {
    const res = await api.call(method, urlPath, body);
    if (res.status === 429) {
      await sleep(50);
      continue;
    }
    if (res.status !== status)
      throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return res.body;
  }
}

/** Runs `work(i)` for i in [0, n) with `concurrency` in flight. */
async function pool(n: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        await work(next++);
        if (++done % 1000 === 0) log(`${done}/${n} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      }
    }),
  );
}

async function count(db: Database, sql: string, params: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: string }>(sql, params);
  return Number(rows[0].n);
}

export async function runDueDayBench(): Promise<void> {
  const machine = describeMachine();
  const bench = await sandboxOnFreshDatabase(SETTINGS.adminUrl, 'cobrdue');
  const { service, database } = bench;
  const db = service.ctx.db;
  const api = client(service);
  try {
    const { rows } = await db.query<{ account_id: number; conta: string }>(
      'select a.id as account_id, a.conta from applications p join accounts a on a.id = p.account_id where p.client_id = $1',
      [service.credentials.clientId],
    );
    const { account_id: accountId, conta } = rows[0];
    const now = Date.parse((await must(api, 200, 'GET', '/sandbox/clock')).agora);
    const today = brasiliaDate(new Date(now));
    let dueDay = toEpochDay(today) + 3;
    while (!isBusinessDay(dueDay)) dueDay++;
    const due = fromEpochDay(dueDay);
    const n = SETTINGS.charges;
    const stamp = Date.now().toString(36);

    const fixturesStarted = performance.now();
    await pool(n, SETTINGS.fixtureConcurrency, async (i) => {
      const rec = await must(api, 201, 'POST', '/v2/rec', {
        vinculo: {
          objeto: 'Assinatura (bench)',
          contrato: `B${i}`,
          devedor: { cpf: '45164632481', nome: 'Fulano de Tal' },
        },
        calendario: { dataInicial: today, periodicidade: 'MENSAL' },
        valor: { valorRec: AMOUNT },
        politicaRetentativa: 'NAO_PERMITE',
      });
      await must(api, 200, 'POST', `/sandbox/rec/${rec.idRec}/aprovar`);
      await must(api, 201, 'PUT', `/v2/cobr/${`Due${stamp}x${String(i).padStart(6, '0')}`.padEnd(30, '0')}`, {
        idRec: rec.idRec,
        calendario: { dataDeVencimento: due },
        valor: { original: AMOUNT },
        ajusteDiaUtil: false,
        recebedor: { conta, tipoConta: 'PAGAMENTO', agencia: '0001' },
      });
    });
    const ativa = `select count(*) as n from recurring_charges where account_id = $1 and status = 'ATIVA'`;
    while ((await count(db, ativa, [accountId])) < n) await sleep(POLL_MS);
    const fixturesS = (performance.now() - fixturesStarted) / 1000;
    log(`${n} charges ATIVA, due ${due}, in ${fixturesS.toFixed(0)} s`);
    await db.query('vacuum analyze');

    const loadAverage = os.loadavg()[0];
    const clockNow = Date.parse((await must(api, 200, 'GET', '/sandbox/clock')).agora);
    const midnight = Date.parse(`${due}T03:00:00Z`); // 00:00 in Brasília (UTC-3)
    const backends = async () =>
      (await db.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database()')).rows.map(
        (r) => r.pid,
      );
    const cpuBefore = { node: process.cpuUsage(), postgres: cpuSeconds(await backends()) };
    const started = performance.now();
    await must(api, 200, 'POST', '/sandbox/clock/advance', { segundos: Math.ceil((midnight - clockNow) / 1000) + 60 });
    const concluded = `select count(*) as n from recurring_charges where account_id = $1 and status = 'CONCLUIDA'`;
    let settled = 0;
    while ((settled = await count(db, concluded, [accountId])) < n) {
      if (performance.now() - started > SETTINGS.timeoutMs) break;
      await sleep(POLL_MS);
    }
    const settleMs = performance.now() - started;
    const nodeCpuS = (() => {
      const used = process.cpuUsage(cpuBefore.node);
      return (used.user + used.system) / 1e6;
    })();
    const postgresCpuS = cpuUsedBetween(cpuBefore.postgres, cpuSeconds(await backends()));
    log(
      `CPU during the measurement: pixd (and the bench) ${nodeCpuS.toFixed(1)} s, PostgreSQL ${postgresCpuS.toFixed(1)} s`,
    );
    log(`${settled}/${n} CONCLUIDA in ${(settleMs / 1000).toFixed(1)} s`);

    // Exactly once: one received Pix per charge, none twice, nothing else left open; the ledger verifies.
    const received = await db.query<{ pix: number; charges: number }>(
      `select count(*)::int as pix, count(distinct p.txid)::int as charges from received_pix p
        join recurring_charges c on c.account_id = p.account_id and c.txid = p.txid where p.account_id = $1`,
      [accountId],
    );
    const { pix, charges } = received.rows[0];
    const other = await count(
      db,
      `select count(*) as n from recurring_charges where account_id = $1 and status <> 'CONCLUIDA'`,
      [accountId],
    );
    const verification = await verifyLedger(db);
    const exactlyOnce = pix === n && charges === n && other === 0;
    log(`received Pix ${pix}, distinct charges ${charges}, not CONCLUIDA ${other}; ledger ${verification.ok}`);
    const met = settled === n && settleMs < SETTINGS.goalMs;
    writeNotesSection(
      SETTINGS.output,
      'cobr-due-day',
      [
        '### Recurring charges due on one day (automatic Pix, issue 15)',
        '',
        `Measured by \`node --import tsx bench/scenarios/cobr-due-day.ts\` (also run by \`npm run bench\`) on ${machine.date}: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, PostgreSQL ${database.version}, code ${machine.code}; 1-minute load average ${loadAverage.toFixed(2)} when the measurement started (the machine is shared).`,
        `Fixtures through the API, ${SETTINGS.fixtureConcurrency} requests in flight (${fixturesS.toFixed(0)} s, not measured): ${n.toLocaleString('en')} approved recurrences on one account, one charge of ${AMOUNT} each, all due ${due}, all ATIVA.`,
        "Measured: from `POST /sandbox/clock/advance` past 00:00 of the due date in Brasília to the count that finds every charge CONCLUIDA (polled every 100 ms): each charge's `cobr.attempt` job runs on the outbox and settles it through the payment engine.",
        '',
        '| charges due | CONCLUIDA | seconds | charges/s | CPU s: pixd process / PostgreSQL | received Pix (distinct charges) | ledger verifies | under 20 s (goal) |',
        '|---:|---:|---:|---:|---:|---:|---|---|',
        `| ${n.toLocaleString('en')} | ${settled.toLocaleString('en')} | ${(settleMs / 1000).toFixed(1)} | ${Math.round(settled / (settleMs / 1000))} | ${nodeCpuS.toFixed(1)} / ${postgresCpuS.toFixed(1)} | ${pix.toLocaleString('en')} (${charges.toLocaleString('en')}) | ${verification.ok ? 'yes' : 'no'} | ${met ? 'yes' : '**no**'} |`,
        '',
        exactlyOnce && verification.ok
          ? 'Exactly once: one received Pix per charge, none paid twice, none left open.'
          : `**Not exactly once**: ${describeVerification(verification)}; ${other} charges not CONCLUIDA.`,
        '',
      ].join('\n'),
    );
    if (!exactlyOnce || !verification.ok) process.exitCode = 1;
  } finally {
    api.close();
    await bench.close();
  }
}

await runIfMain(import.meta.url, log, runDueDayBench);
