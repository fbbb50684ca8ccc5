/**
 * Balances in constant time (issue 11): GET /v2/gn/saldo and a refund (PUT /v2/pix/:e2eid/devolucao/:id until
 * the refund is DEVOLVIDO, which debits the balance under the account lock) on one account with 10,000 and
 * then 1,000,000 journal lines. With posted totals both must cost the same: the goal is medians within 20 %.
 * Standalone: `node --import tsx bench/scenarios/balance-history.ts` (PostgreSQL, BENCH_PG_URL).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { RunningService } from '../../src/runtime.ts';
import type { IssuedAccount } from '../../src/accounts/service.ts';
import { brasiliaDate, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';
import { sandboxOnFreshDatabase } from '../postgres.ts';
import { runIfMain } from '../lifecycle.ts';
import { keepAliveSender, type JsonResponse } from '../https-json.ts';
import { writeNotesSection } from '../notes-section.ts';
import { median } from '../stats.ts';
import { seedMovements } from './reconciliation-report.ts';

const SETTINGS = {
  /** Journal lines on the account's available balance before each measurement (one per seeded movement). */
  sizes: (process.env.BENCH_HISTORY_SIZES || '10000,1000000').split(',').map(Number),
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/performance.md',
  balanceReads: 300,
  refunds: 40,
  /** Goal: the medians at the largest size within this share of the smallest's. */
  goalRatio: 1.2,
};
const log = (line: string) => process.stderr.write(`bench history: ${line}\n`);

/**
 * Keep-alive mutual-TLS JSON calls of an application (`issued`, or else the service's demo one), token fetched
 * on first use.
 */
export function client(service: RunningService, issued?: IssuedAccount) {
  const { clientId, clientSecret } = issued ?? service.credentials;
  const { send, close } = keepAliveSender(service, issued && { identity: issued.certificate });
  let token: string | undefined;
  return {
    async call(method: string, urlPath: string, body?: unknown): Promise<JsonResponse> {
      if (!token) {
        const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
        token = (await send('POST', '/oauth/token', { grant_type: 'client_credentials' }, basic)).body.access_token;
      }
      return send(method, urlPath, body, `Bearer ${token}`);
    },
    close,
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

interface Result {
  lines: number;
  balanceMedianMs: number;
  refundMedianMs: number;
  /** The balance as it was read before posted totals (the sum of the account's lines), timed in SQL alone. */
  sumOfLinesMedianMs: number;
}

const SUM_OF_LINES = `select coalesce(sum(l.amount_cents), 0)::bigint as total from journal_lines l
  join ledger_accounts a on a.id = l.ledger_account_id where a.code = $1`;

async function measure(
  service: RunningService,
  api: ReturnType<typeof client>,
  accountId: number,
  lines: number,
): Promise<Result> {
  const sumMs: number[] = [];
  for (let i = 0; i < 20; i++)
    sumMs.push(await timed(() => service.ctx.db.query(SUM_OF_LINES, [`customer:${accountId}:available`])));
  const balanceMs: number[] = [];
  for (let i = 0; i < SETTINGS.balanceReads; i++) balanceMs.push(await timed(() => api.call('GET', '/v2/gn/saldo/')));
  const refundMs: number[] = [];
  for (let i = 0; i < SETTINGS.refunds; i++) {
    const cob = await api.call('POST', '/v2/cob', {
      calendario: { expiracao: 3600 },
      valor: { original: '50.00' },
      chave: service.credentials.chaves[0],
    });
    const paid = await api.call('POST', '/sandbox/pix/pay', { txid: cob.body.txid });
    const e2e = paid.body.endToEndId as string;
    const id = `hist${lines}x${i}`;
    refundMs.push(
      await timed(async () => {
        const put = await api.call('PUT', `/v2/pix/${e2e}/devolucao/${id}`, { valor: '1.00' });
        if (put.status !== 201) throw new Error(`refund answered ${put.status}`);
        for (;;) {
          const read = await api.call('GET', `/v2/pix/${e2e}/devolucao/${id}`);
          if (read.body.status !== 'EM_PROCESSAMENTO') break;
        }
      }),
    );
  }
  return {
    lines,
    balanceMedianMs: median(balanceMs),
    refundMedianMs: median(refundMs),
    sumOfLinesMedianMs: median(sumMs),
  };
}

export async function runHistoryBench(): Promise<void> {
  const bench = await sandboxOnFreshDatabase(SETTINGS.adminUrl, 'history');
  const { service, database } = bench;
  const api = client(service);
  try {
    const { rows } = await service.ctx.db.query<{ account_id: number }>(
      'select account_id from applications where client_id = $1',
      [service.credentials.clientId],
    );
    const today = toEpochDay(brasiliaDate(service.ctx.clock.now()));
    const results: Result[] = [];
    // Warm the connections, the JIT and the plans first: otherwise the first size pays for them.
    await measure(service, api, rows[0].account_id, 0);
    let seeded = 0;
    for (const [i, size] of SETTINGS.sizes.entries()) {
      const started = performance.now();
      await seedMovements(service.ctx.db, rows[0].account_id, fromEpochDay(today - 10 - i), size - seeded);
      // Vacuumed now, so autovacuum does not run over the new rows in the middle of the measurement.
      await service.ctx.db.query('vacuum analyze');
      seeded = size;
      log(`${size.toLocaleString('en')} lines seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      const result = await measure(service, api, rows[0].account_id, size);
      log(JSON.stringify(result));
      results.push(result);
    }
    const [small, large] = [results[0], results.at(-1)!];
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    const met =
      large.balanceMedianMs <= small.balanceMedianMs * SETTINGS.goalRatio &&
      large.refundMedianMs <= small.refundMedianMs * SETTINGS.goalRatio;
    writeNotesSection(
      SETTINGS.output,
      'balance-history',
      [
        '### Balances against history (posted totals)',
        '',
        `Measured by \`node --import tsx bench/scenarios/balance-history.ts\` on ${new Date().toISOString()} (${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${database.version}).`,
        `One account on a fresh database; its history seeded straight into the journal (and its posted totals brought up to it), then`,
        `${SETTINGS.balanceReads} sequential GET /v2/gn/saldo and ${SETTINGS.refunds} refunds (PUT devolucao, then GET until it leaves EM_PROCESSAMENTO: the refund job debits the balance`,
        'under the account lock), one at a time over one keep-alive connection. Medians:',
        '',
        '| journal lines on the account | GET /v2/gn/saldo ms | refund ms | baseline: sum of the lines (the old balance read), SQL alone, ms |',
        '|---:|---:|---:|---:|',
        ...results.map(
          (r) =>
            `| ${r.lines.toLocaleString('en')} | ${r.balanceMedianMs.toFixed(2)} | ${r.refundMedianMs.toFixed(1)} | ${r.sumOfLinesMedianMs.toFixed(2)} |`,
        ),
        '',
        `Largest over smallest: balance ${ratio(large.balanceMedianMs, small.balanceMedianMs)}×, refund ${ratio(large.refundMedianMs, small.refundMedianMs)}×. Goal (within ${Math.round((SETTINGS.goalRatio - 1) * 100)} %): ${met ? 'met' : '**not met**'}.`,
        '',
      ].join('\n'),
    );
  } finally {
    api.close();
    await bench.close();
  }
}

await runIfMain(import.meta.url, log, runHistoryBench);
