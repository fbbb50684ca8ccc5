/**
 * Payments against history (issue 11): charges created and paid (POST /v2/cob, then POST /sandbox/pix/pay) by
 * 10 workers (each an account of its own), one pair at a time each, while the table holds 10,000 and then
 * 1,000,000 charges of theirs. A payment finds its charge by key, so both sizes must cost the same. The statements are planned on a nearly empty table
 * (the warm-up) and the charges are then added with no ANALYZE since, as a database without autovacuum, or a
 * new one in its first minute, keeps them; a last row repeats the largest size after ANALYZE, as autovacuum
 * would leave it. Standalone: `node --import tsx bench/scenarios/settlement-history.ts` (PostgreSQL, BENCH_PG_URL).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { RunningService } from '../../src/runtime.ts';
import { sandboxOnFreshDatabase } from '../postgres.ts';
import { runIfMain, runWorkers } from '../lifecycle.ts';
import { writeNotesSection } from '../notes-section.ts';
import { median } from '../stats.ts';
import { cpuSeconds, cpuUsedBetween } from '../cpu.ts';
import { client } from './balance-history.ts';
import { createAccount } from '../../src/accounts/service.ts';
import { SCOPES, isParticipantScope } from '../../src/platform/auth/scopes.ts';

const SETTINGS = {
  /** Charges in the table (spread over the payers' accounts) before each measurement. */
  sizes: (process.env.BENCH_CHARGE_HISTORY_SIZES || '10000,1000000').split(',').map(Number),
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/performance.md',
  /** Pairs measured at each size; and before the first, to have every statement planned on a small table. */
  pairs: 3_000,
  warmupPairs: 500,
  /**
   * Pairs in flight, as in the settlement scenario: payments arriving together share the group commits'
   * statements, whose kept plans are the ones at stake (one payment at a time is planned afresh each time).
   */
  workers: 10,
  /** Charges written per seeding statement. */
  seedBatch: 100_000,
  /** Goal: the medians at the largest size within this share of the smallest's. */
  goalRatio: 1.2,
};
const log = (line: string) => process.stderr.write(`bench charge history: ${line}\n`);

interface Result {
  label: string;
  charges: number;
  pairMedianMs: number;
  payMedianMs: number;
  /** CPU of the database's backends per pair, µs. */
  postgresCpuUs: number;
}

/** One payer per worker: an account of its own (its own rate limit), its key and a keep-alive client. */
async function payers(service: RunningService) {
  return Promise.all(
    Array.from({ length: SETTINGS.workers }, async (_, n) => {
      const issued = await createAccount(service.ctx.db, service.ctx.pki, service.ctx.clock, {
        nome: `Bench History ${n + 1} Ltda`,
        // Every scope a non-participant account may hold (the sandbox pay route's among them).
        scopes: SCOPES.filter((s) => !isParticipantScope(s)),
      });
      const api = client(service, issued);
      return { accountId: issued.account.id, chave: issued.chaves[0], call: api.call, close: api.close };
    }),
  );
}
type Payer = Awaited<ReturnType<typeof payers>>[number];

async function measure(
  payersOf: Payer[],
  backendPids: () => Promise<number[]>,
  pairs: number,
): Promise<Omit<Result, 'label' | 'charges'>> {
  const pairMs: number[] = [];
  const payMs: number[] = [];
  const pids = await backendPids();
  const cpuBefore = cpuSeconds(pids);
  await runWorkers(payersOf.length, { durationS: Number.POSITIVE_INFINITY, maxSteps: pairs }, async (n) => {
    const payer = payersOf[n];
    const started = performance.now();
    // 12.34: above the sandbox auto-payer's 10.00, so only this request pays it.
    const cob = await payer.call('POST', '/v2/cob', {
      calendario: { expiracao: 3600 },
      valor: { original: '12.34' },
      chave: payer.chave,
    });
    if (cob.status !== 201) throw new Error(`POST /v2/cob answered ${cob.status}`);
    const payStarted = performance.now();
    const paid = await payer.call('POST', '/sandbox/pix/pay', { txid: cob.body.txid });
    if (paid.status !== 201) throw new Error(`pay answered ${paid.status}`);
    payMs.push(performance.now() - payStarted);
    pairMs.push(performance.now() - started);
  });
  const cpuS = cpuUsedBetween(cpuBefore, cpuSeconds(pids));
  return { pairMedianMs: median(pairMs), payMedianMs: median(payMs), postgresCpuUs: (cpuS / pairs) * 1e6 };
}

/** Adds `count` paid charges, spread over the payers' accounts, set-based, shaped as the API writes them. */
async function seedCharges(service: RunningService, payersOf: Payer[], count: number, from: number) {
  for (let done = 0; done < count; done += SETTINGS.seedBatch) {
    await service.ctx.db.query(
      `insert into charges (account_id, txid, kind, revisao, status, created_at, updated_at, amount_cents, chave, body)
       select p.account_id, 'hist' || lpad(g::text, 28, '0'), 'cob', 0, 'CONCLUIDA', now(), now(), 1234, p.chave,
              jsonb_build_object('calendario', jsonb_build_object('expiracao', 3600),
                'valor', jsonb_build_object('original', '12.34'), 'chave', p.chave)
         from generate_series($3::int, $4::int) g
         join unnest($1::bigint[], $2::text[]) with ordinality as p(account_id, chave, n) on p.n = g % $5 + 1`,
      [
        payersOf.map((p) => p.accountId),
        payersOf.map((p) => p.chave),
        from + done + 1,
        from + Math.min(done + SETTINGS.seedBatch, count),
        payersOf.length,
      ],
    );
  }
}

export async function runChargeHistoryBench(): Promise<void> {
  const bench = await sandboxOnFreshDatabase(SETTINGS.adminUrl, 'chargehistory');
  const { service, database } = bench;
  const payersOf = await payers(service);
  try {
    await measure(payersOf, database.backendPids, SETTINGS.warmupPairs);
    const results: Result[] = [];
    let seeded = 0;
    for (const size of SETTINGS.sizes) {
      const started = performance.now();
      await seedCharges(service, payersOf, size - seeded, seeded);
      seeded = size;
      log(`${size.toLocaleString('en')} charges seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      const measured = await measure(payersOf, database.backendPids, SETTINGS.pairs);
      const result = { label: 'no ANALYZE since the plans', charges: size, ...measured };
      log(JSON.stringify(result));
      results.push(result);
    }
    await service.ctx.db.query('analyze charges');
    const analyzed = {
      label: 'after ANALYZE',
      charges: seeded,
      ...(await measure(payersOf, database.backendPids, SETTINGS.pairs)),
    };
    log(JSON.stringify(analyzed));
    results.push(analyzed);
    const [small, large] = [results[0], results[SETTINGS.sizes.length - 1]];
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    const met = large.payMedianMs <= small.payMedianMs * SETTINGS.goalRatio;
    writeNotesSection(
      SETTINGS.output,
      'settlement-history',
      [
        '### Payments against history (charges in the table)',
        '',
        `Measured by \`node --import tsx bench/scenarios/settlement-history.ts\` on ${new Date().toISOString()} (${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${database.version}).`,
        `${SETTINGS.workers} accounts on a fresh database: ${SETTINGS.warmupPairs} pairs first (every statement planned while \`charges\` is small), then charges of theirs seeded straight into`,
        `the table with no ANALYZE (this machine's PostgreSQL runs without autovacuum), and ${SETTINGS.pairs} pairs (POST /v2/cob, then POST /sandbox/pix/pay) by ${SETTINGS.workers} workers,`,
        'one pair at a time each, over keep-alive connections at each size; the last row is the largest size again after `analyze charges`. Medians, and the CPU of the',
        "database's backends per pair:",
        '',
        '| charges in the table | statistics | pay ms | pair ms | PostgreSQL CPU µs per pair |',
        '|---:|---|---:|---:|---:|',
        ...results.map(
          (r) =>
            `| ${r.charges.toLocaleString('en')} | ${r.label} | ${r.payMedianMs.toFixed(2)} | ${r.pairMedianMs.toFixed(2)} | ${Math.round(r.postgresCpuUs)} |`,
        ),
        '',
        `Largest over smallest, no ANALYZE: pay ${ratio(large.payMedianMs, small.payMedianMs)}×, PostgreSQL CPU ${ratio(large.postgresCpuUs, small.postgresCpuUs)}×. Goal (pay within ${Math.round((SETTINGS.goalRatio - 1) * 100)} %): ${met ? 'met' : '**not met**'}.`,
        '',
      ].join('\n'),
    );
  } finally {
    for (const payer of payersOf) payer.close();
    await bench.close();
  }
}

await runIfMain(import.meta.url, log, runChargeHistoryBench);
