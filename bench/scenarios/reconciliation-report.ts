/**
 * Reconciliation report bench: how long the file of a day with a million movements takes to generate and
 * download, and how much memory pixd uses meanwhile (the generation streams, so memory should not grow
 * with the day).
 *
 * Not an autocannon scenario (one long request, not a request rate), so it runs on its own:
 * `node --import tsx bench/scenarios/reconciliation-report.ts`. pixd runs in this process (`startService`,
 * production environment) on a fresh PostgreSQL database (BENCH_PG_URL), so the outbox job that builds
 * the file runs here and this process's RSS is pixd's. The days are seeded straight into the journal
 * with set-based SQL (`seedMovements`, also used by the tests), then each report goes through the API:
 * POST, GET until 200, and the file streamed down and counted, never held.
 * Results go between the report markers inside the notes block of docs/performance.md.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/runtime.ts';
import type { Sql } from '../../src/platform/db/database.ts';
import { ledgerCode } from '../../src/platform/ledger/ledger.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { brasiliaDate, brasiliaDay, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';
import { TIPO_REGISTROS } from '../../src/pix/reports/record-types.ts';
import { freshDatabase } from '../postgres.ts';
import { runIfMain } from '../lifecycle.ts';
import { writeNotesSection } from '../notes-section.ts';

/**
 * Writes `count` movements on `accountId`'s available balance, spread evenly over the Brasília day `date`,
 * in two set-based statements (entries, then both lines of each). Per 20 entries: 16 Pix received
 * (credits of 10.00 to 99.99), 2 sent by key, 1 refund sent, 1 MED block (debits of 1.00 to 4.99, so the
 * balance never goes negative), then brings the posted totals up to the new lines. Returns nothing: the tests and the bench recompute what they check.
 */
export async function seedMovements(sql: Sql, accountId: number, date: string, count: number): Promise<void> {
  const { start, end } = brasiliaDay(date);
  const codes = [ledgerCode.available(accountId), ledgerCode.externalPix, ledgerCode.blocked(accountId, 'med')];
  for (const code of codes) {
    const customer = code.startsWith('customer:');
    await sql.query(
      `insert into ledger_accounts (code, account_id, balance_cents) values ($1, $2, $3) on conflict (code) do nothing`,
      [code, customer ? accountId : null, customer ? 0 : null],
    );
  }
  const stepMs = (end.getTime() - start.getTime()) / count;
  await sql.query(
    `insert into journal_entries (kind, reference, account_id, created_at)
     select case when g % 20 in (0, 10) then 'pix_enviado_chave' when g % 20 = 5 then 'pix_devolvido' when g % 20 = 15 then 'bloqueio_med' else 'pix_recebido' end,
            'E99999009' || to_char($3::timestamptz, 'YYYYMMDD') || lpad(g::text, 15, '0'),
            $1, $3::timestamptz + floor((g - 1) * $4::float8) * interval '1 millisecond'
     from generate_series(1, $2::int) g`,
    [accountId, count, start, stepMs],
  );
  // The customer's line (+credit / -debit) and its counterpart, for every entry just written.
  await sql.query(
    `with e as (
       select id, kind, case when kind = 'pix_recebido' then 1000 + id % 9000 else -(100 + id % 400) end as amount
       from journal_entries where account_id = $1 and created_at >= $2 and created_at < $3)
     insert into journal_lines (entry_id, ledger_account_id, amount_cents)
     select e.id, (select id from ledger_accounts where code = $4), e.amount from e
     union all
     select e.id, (select id from ledger_accounts where code = case when e.kind = 'bloqueio_med' then $6 else $5 end), -e.amount from e`,
    [accountId, start, end, ...codes],
  );
  // Written around post(), so the posted totals are brought up to the lines just inserted.
  await sql.query(
    `update ledger_accounts a set balance_cents = (select coalesce(sum(amount_cents), 0) from journal_lines l where l.ledger_account_id = a.id)
     where a.code = any($1) and a.balance_cents is not null`,
    [codes],
  );
}

const env = (name: string, fallback: string) => process.env[name] || fallback;
const SETTINGS = {
  /** Movements per seeded day; the largest is the goal's, the smaller ones show memory does not follow size. */
  sizes: env('BENCH_REPORT_SIZES', '100000,1000000').split(',').map(Number),
  adminUrl: env('BENCH_PG_URL', 'postgres://postgres@127.0.0.1:5432/postgres'),
  output: env('BENCH_OUTPUT', 'docs/performance.md'),
  /** Goal: a million-movement day in under 30 s. */
  goalSeconds: 30,
};
const POLL_MS = 100;
const log = (line: string) => process.stderr.write(`bench report: ${line}\n`);
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

interface Result {
  movements: number;
  seedS: number;
  generationS: number;
  readyS: number;
  downloadS: number;
  fileMiB: number;
  lines: number;
  baselineRssMiB: number;
  /** Peak RSS from the POST to the file being ready (the generation). */
  generationPeakRssMiB: number;
  /** Peak RSS while the file is streamed down. */
  downloadPeakRssMiB: number;
  trailer: string;
}

/** Samples RSS until stopped; returns the peak. */
function rssSampler(): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

/**
 * One HTTPS request as the demo application. A file body is counted and only its last line kept; with
 * `headersOnly` a 200 stops at the headers (the poll learns the file is ready without downloading it).
 */
function call(
  service: RunningService,
  method: string,
  urlPath: string,
  options: { token?: string; body?: unknown; headersOnly?: boolean } = {},
): Promise<{ status: number; json?: any; bytes: number; lastLine: string }> {
  const { token, body } = options;
  const c = service.credentials;
  const tls = {
    ca: fs.readFileSync(c.caCertificate),
    cert: fs.readFileSync(c.certificate.pem),
    key: fs.readFileSync(c.certificate.key),
  };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = {
    ...(token
      ? { authorization: `Bearer ${token}` }
      : { authorization: 'Basic ' + Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64') }),
    ...(payload !== undefined && {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(payload)),
    }),
  };
  // PORT=0 picked a free port, which the configured public URL cannot know.
  const { port } = service.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const request = https.request(
      `https://127.0.0.1:${port}${urlPath}`,
      { method, headers, ...tls, agent: false },
      (response) => {
        if (options.headersOnly && response.statusCode === 200) {
          response.destroy();
          resolve({ status: 200, bytes: 0, lastLine: '' });
          return;
        }
        let bytes = 0;
        let tail = '';
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          tail = (tail + chunk.toString('utf8')).slice(-4096);
        });
        response.on('end', () => {
          const json = (response.headers['content-type'] ?? '').includes('json') ? JSON.parse(tail) : undefined;
          resolve({ status: response.statusCode ?? 0, json, bytes, lastLine: tail.trimEnd().split('\n').at(-1) ?? '' });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

async function runSize(
  service: RunningService,
  accountId: number,
  token: string,
  date: string,
  movements: number,
): Promise<Result> {
  const { db } = service.ctx;
  const seedStarted = performance.now();
  await seedMovements(db, accountId, date, movements);
  await db.query('analyze journal_entries');
  await db.query('analyze journal_lines');
  const seedS = (performance.now() - seedStarted) / 1000;
  log(`seeded ${movements.toLocaleString('en')} movements on ${date} in ${seedS.toFixed(1)} s`);

  const baseline = process.memoryUsage.rss();
  const generating = rssSampler();
  const started = performance.now();
  const body = { dataMovimento: date, tipoRegistros: Object.fromEntries(TIPO_REGISTROS.map((t) => [t, true])) };
  const posted = await call(service, 'POST', '/v2/gn/relatorios/extrato-conciliacao', { token, body });
  if (posted.status !== 201) throw new Error(`POST answered ${posted.status}`);
  const reportPath = `/v2/gn/relatorios/${posted.json.id}`;
  let ready = await call(service, 'GET', reportPath, { token, headersOnly: true });
  while (ready.status === 202) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    ready = await call(service, 'GET', reportPath, { token, headersOnly: true });
  }
  const readyS = (performance.now() - started) / 1000;
  if (ready.status !== 200) throw new Error(`GET answered ${ready.status}`);
  const generationPeak = generating.stop();
  const downloading = rssSampler();
  const downloadStarted = performance.now();
  const download = await call(service, 'GET', reportPath, { token });
  const downloadS = (performance.now() - downloadStarted) / 1000;
  const downloadPeak = downloading.stop();
  const { rows } = await db.query<{ seconds: number; line_count: number }>(
    `select extract(epoch from finished_at - started_at)::float8 as seconds, line_count from reports where public_id = $1`,
    [posted.json.id],
  );
  return {
    movements,
    seedS,
    generationS: rows[0].seconds,
    readyS,
    downloadS,
    fileMiB: Math.round((download.bytes / 1024 / 1024) * 10) / 10,
    lines: rows[0].line_count,
    baselineRssMiB: mib(baseline),
    generationPeakRssMiB: mib(generationPeak),
    downloadPeakRssMiB: mib(downloadPeak),
    trailer: download.lastLine,
  };
}

function report(results: Result[], postgresVersion: string): string {
  const rows = results.map(
    (r) =>
      `| ${r.movements.toLocaleString('en')} | ${r.lines.toLocaleString('en')} | ${r.fileMiB} | ${r.generationS.toFixed(1)} | ${r.readyS.toFixed(1)} | ${r.downloadS.toFixed(1)} | ${r.baselineRssMiB} | ${r.generationPeakRssMiB} | ${r.downloadPeakRssMiB} |`,
  );
  const largest = results.at(-1)!;
  return [
    '### Reconciliation report',
    '',
    `Measured by \`node --import tsx bench/scenarios/reconciliation-report.ts\` on ${new Date().toISOString()} (${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${postgresVersion}).`,
    'One account, one Brasília day per size seeded straight into the journal (16 in 20 movements are Pix received, the rest sent, refunded or blocked), then',
    'a report of every record type through the API: POST, GET every 100 ms until 200, then one more GET streamed and counted. "generation" is the',
    'outbox job\'s own time (EM_PROCESSAMENTO to CONCLUIDO); "ready" includes queueing and polling. RSS is pixd\'s process (the bench client in it',
    `only counts bytes), sampled every 20 ms: its peak from the POST to the file being ready, then while the file is streamed down. Pages of`,
    `${LIMITS.reportBatchRows.toLocaleString('en')} journal lines, chunks of ${mib(LIMITS.reportChunkBytes)} MiB. "RSS before" is taken after seeding, so it varies with what the seeding left behind.`,
    '',
    '| movements | file lines | file MiB | generation s | ready s | download s | RSS before MiB | RSS peak generating MiB | RSS peak downloading MiB |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `Goal: a ${largest.movements.toLocaleString('en')}-movement day in under ${SETTINGS.goalSeconds} s: ${largest.readyS < SETTINGS.goalSeconds ? 'met' : '**not met**'} (${largest.readyS.toFixed(1)} s from POST to file ready). Its trailer: \`${largest.trailer}\`.`,
    '',
  ].join('\n');
}

export async function runReportBench(): Promise<void> {
  const database = await freshDatabase(SETTINGS.adminUrl);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-bench-report-'));
  const config = loadConfig({
    PIXD_DATA_DIR: dataDir,
    PORT: '0',
    PIXD_ENV: 'production',
    LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
  });
  const service = await startService(config, { logger: false });
  try {
    const { rows } = await service.ctx.db.query<{ account_id: number }>(
      'select account_id from applications where client_id = $1',
      [service.credentials.clientId],
    );
    const token = (await call(service, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials' } })).json
      .access_token as string;
    const today = toEpochDay(brasiliaDate(service.ctx.clock.now()));
    const results: Result[] = [];
    // Oldest day first, one day per size, all before today.
    for (const [i, size] of SETTINGS.sizes.entries()) {
      const result = await runSize(
        service,
        rows[0].account_id,
        token,
        fromEpochDay(today - SETTINGS.sizes.length + i),
        size,
      );
      log(JSON.stringify(result));
      results.push(result);
    }
    writeNotesSection(SETTINGS.output, 'report', report(results, database.version));
  } finally {
    await service.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await runIfMain(import.meta.url, log, runReportBench);
