/**
 * Open Finance automatic payments under load (issue 17, item 8), on PostgreSQL, pixd and the clients in one
 * process:
 *  1. enrolment creation: POST /v1/pagamentos-automaticos/adesao by concurrent keep-alive clients of one
 *     application (on the 500 req/s write limit, so 429s are counted apart);
 *  2. payment creation: POST /v1/pagamentos-automaticos/pix, one per authorised enrolment (the enrolments are
 *     authorised with one UPDATE: the consent page is not what is measured);
 *  3. paging a list of 100,000 enrolments: the enrolments table is filled to that size with one INSERT … SELECT
 *     (a fixture), then GET /v1/pagamentos-automaticos/adesao is timed on its first page, a page in the middle
 *     (the keyset link of row 50,000) and the last page (`ultimo`): constant time per page means the three agree.
 * Standalone: `node --import tsx bench/scenarios/automatic-payments.ts` (BENCH_PG_URL; BENCH_OF_* below).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { RunningService } from '../../src/runtime.ts';
import { createAccount, type IssuedAccount } from '../../src/accounts/service.ts';
import { SANDBOX_PARTICIPANTS } from '../../src/openfinance/participants/store.ts';
import { brasiliaDate, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';
import { sandboxOnFreshDatabase } from '../postgres.ts';
import { runIfMain } from '../lifecycle.ts';
import { keepAliveSender, type JsonResponse } from '../https-json.ts';
import { writeNotesSection } from '../notes-section.ts';
import { median, percentile } from '../stats.ts';

const SETTINGS = {
  creations: Number(process.env.BENCH_OF_CREATIONS || 2_000),
  listSize: Number(process.env.BENCH_OF_LIST_SIZE || 100_000),
  pageReads: Number(process.env.BENCH_OF_PAGE_READS || 30),
  clients: Number(process.env.BENCH_OF_CLIENTS || 10),
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/performance.md',
};
const ENROL = '/v1/pagamentos-automaticos/adesao';
const PAY = '/v1/pagamentos-automaticos/pix';
const PAYER_CPF = '94271564656';
const log = (line: string) => process.stderr.write(`bench automatic payments: ${line}\n`);

type Reply = JsonResponse;

function client(service: RunningService, issued: IssuedAccount) {
  return keepAliveSender(service, { identity: issued.certificate, maxSockets: 1 });
}

type Client = ReturnType<typeof client>;

/** Sends `count` requests over the clients; answers statuses, latencies and the wall time. */
async function drive(clients: Client[], count: number, request: (i: number, c: Client) => Promise<Reply>) {
  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  const replies: Reply[] = new Array(count);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (let n = next++; n < count; n = next++) {
        const sent = performance.now();
        const reply = await request(n, c);
        latencies.push(performance.now() - sent);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        replies[n] = reply;
      }
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { statuses, latencies, wallS, replies, ok: statuses.get(200) ?? 0 };
}

const row = (what: string, r: Awaited<ReturnType<typeof drive>>) =>
  `| ${what} | ${r.replies.length.toLocaleString('en')} | ${r.ok.toLocaleString('en')} | ${
    [...r.statuses]
      .filter(([s]) => s !== 200)
      .map(([s, n]) => `${s} ×${n}`)
      .join(', ') || 'none'
  } | ${r.wallS.toFixed(1)} | ${Math.round(r.ok / r.wallS)} | ${percentile(r.latencies, 50).toFixed(1)} | ${percentile(r.latencies, 99).toFixed(1)} |`;

export async function runAutomaticPaymentsBench(): Promise<void> {
  const bench = await sandboxOnFreshDatabase(SETTINGS.adminUrl, 'openfinance');
  const { service, database } = bench;
  const issued = await createAccount(service.ctx.db, service.ctx.pki, service.ctx.clock, {});
  const clients = Array.from({ length: SETTINGS.clients }, () => client(service, issued));
  try {
    const basic = `Basic ${Buffer.from(`${issued.clientId}:${issued.clientSecret}`).toString('base64')}`;
    const token = (await clients[0].send('POST', '/oauth/token', { grant_type: 'client_credentials' }, basic)).body
      .access_token as string;
    const bearer = `Bearer ${token}`;
    await clients[0].send(
      'PUT',
      '/v1/config',
      { redirectURL: 'https://app.example/retorno', webhookURL: 'https://127.0.0.1:9/of' },
      bearer,
    );
    const today = brasiliaDate(service.ctx.clock.forAccount(issued.account.id).now());
    const body = {
      pagador: { cpf: PAYER_CPF, nome: 'Pagador Bench', idParticipante: SANDBOX_PARTICIPANTS[0].identificador },
      favorecido: {
        contaBanco: {
          nome: issued.account.nome,
          documento: issued.account.documento,
          codigoBanco: '364',
          agencia: '0001',
          conta: issued.account.conta,
          tipoConta: 'TRAN',
        },
      },
      assinatura: {
        expiracao: fromEpochDay(toEpochDay(today) + 365),
        descricao: 'Bench',
        configuracao: { automatico: { valorFixo: '5.00', intervalo: 'MENSAL', dataInicio: today } },
      },
    };
    const loadAtStart = os.loadavg()[0];
    const enrolments = await drive(clients, SETTINGS.creations, (_i, c) => c.send('POST', ENROL, body, bearer));
    log(`enrolments: ${row('', enrolments)}`);
    // Authorised as the consent page would (not what is measured), then one payment per enrolment.
    await service.ctx.db.query(`update of_enrolments set status = 'autorizado' where status = 'pendente'`);
    const ids = enrolments.replies.filter((r) => r.status === 200).map((r) => r.body.identificadorAdesao as string);
    const payments = await drive(clients, ids.length, (i, c) =>
      c.send(
        'POST',
        PAY,
        { identificadorAdesao: ids[i], pagamento: { valor: '5.00', data: fromEpochDay(toEpochDay(today) + 1) } },
        bearer,
      ),
    );
    log(`payments: ${row('', payments)}`);

    // The list fixture: the table filled to listSize enrolments of the account, a second apart.
    const fill = Math.max(0, SETTINGS.listSize - ids.length);
    const filled = performance.now();
    await service.ctx.db.query(
      `insert into of_enrolments (account_id, identificador, status, body, id_proprio, documento, consent_token,
         consent_expires_at, created_at, updated_at)
       select $1, 'urn:pixd:bench-' || i, 'autorizado', $2::jsonb, null, $3,
              md5('t' || i) || substr(md5('u' || i), 1, 16), now(), now() - (i * interval '1 second'), now()
         from generate_series(1, $4::int) as i`,
      [issued.account.id, JSON.stringify(body), PAYER_CPF, fill],
    );
    await service.ctx.db.query('analyze of_enrolments');
    log(`filled to ${SETTINGS.listSize} enrolments in ${((performance.now() - filled) / 1000).toFixed(1)} s`);
    const from = fromEpochDay(toEpochDay(today) - 30);
    const to = fromEpochDay(toEpochDay(today) + 1);
    const list = `${ENROL}?inicio=${from}&fim=${to}`;
    const { rows } = await service.ctx.db.query<{ ms: number; id: number }>(
      `select (extract(epoch from created_at) * 1000)::float8 as ms, id from of_enrolments
        where account_id = $1 order by created_at, id offset $2 limit 1`,
      [issued.account.id, Math.floor(SETTINGS.listSize / 2)],
    );
    const pages: [string, string][] = [
      ['first page', list],
      [
        `middle (after row ${Math.floor(SETTINGS.listSize / 2).toLocaleString('en')})`,
        `${list}&pagina=a.${Math.round(rows[0].ms)}.${rows[0].id}`,
      ],
      ['last page (`ultimo`)', `${list}&pagina=u`],
    ];
    const timings: string[] = [];
    const medians: number[] = [];
    for (const [name, url] of pages) {
      const times: number[] = [];
      let count = 0;
      let total = 0;
      for (let i = 0; i < SETTINGS.pageReads; i++) {
        const sent = performance.now();
        const reply = await clients[0].send('GET', url, undefined, bearer);
        times.push(performance.now() - sent);
        if (reply.status !== 200) throw new Error(`${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
        count = reply.body.adesoes.length;
        total = reply.body.total;
      }
      times.sort((a, b) => a - b);
      medians.push(median(times));
      timings.push(
        `| ${name} | ${count} | ${total.toLocaleString('en')} | ${median(times).toFixed(1)} | ${percentile(times, 90).toFixed(1)} |`,
      );
      log(`${name}: ${count} rows of ${total}, median ${median(times).toFixed(1)} ms`);
    }
    const plan = await service.ctx.db.query<{ 'QUERY PLAN': string }>(
      `explain (analyze, costs off, timing off, summary on)
       select * from of_enrolments where account_id = $1 and created_at >= $2 and created_at <= $3
          and (created_at, id) > (to_timestamp($4 / 1000.0), $5) order by created_at, id limit 101`,
      [issued.account.id, new Date(`${from}T03:00:00Z`), new Date(`${to}T23:59:59-03:00`), rows[0].ms, rows[0].id],
    );
    const planText = plan.rows.map((r) => r['QUERY PLAN']);
    writeNotesSection(
      SETTINGS.output,
      'automatic-payments',
      [
        '### Open Finance automatic payments (issue 17)',
        '',
        `Measured by \`node --import tsx bench/scenarios/automatic-payments.ts\` on ${new Date().toISOString()} (${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${database.version}; pixd and the clients in one process; load average at the start ${loadAtStart.toFixed(1)}).`,
        `One application, ${SETTINGS.clients} concurrent keep-alive clients. Both creations are on the 500 req/s write limit per application and endpoint (a 429 beyond it).`,
        '',
        '| operation | requests | 200 | other answers | wall s | per s | p50 ms | p99 ms |',
        '|---|---:|---:|---|---:|---:|---:|---:|',
        row('POST /v1/pagamentos-automaticos/adesao', enrolments),
        row('POST /v1/pagamentos-automaticos/pix', payments),
        '',
        `Paging a list of ${SETTINGS.listSize.toLocaleString('en')} enrolments (GET /v1/pagamentos-automaticos/adesao, 100 a page, ${SETTINGS.pageReads} reads each, one client):`,
        '',
        '| page | rows | total | median ms | p90 ms |',
        '|---|---:|---:|---:|---:|',
        ...timings,
        '',
        `The page statement is a keyset read on \`of_enrolments_page\` (account, created_at, id): the middle page's plan,`,
        '',
        '```',
        ...planText,
        '```',
        '',
        'Every answer also carries `total`, a count over the filtered range (an index-only range scan): that part grows',
        'with the number of enrolments in the period, the page itself does not.',
        '',
      ].join('\n'),
    );
    if (medians.length === 3 && Math.max(...medians) > 3 * Math.min(...medians)) {
      log('pages differ by more than 3×: not constant time');
      process.exitCode = 1;
    }
  } finally {
    for (const c of clients) c.close();
    await bench.close();
  }
}

await runIfMain(import.meta.url, log, runAutomaticPaymentsBench);
