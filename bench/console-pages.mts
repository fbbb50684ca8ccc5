/**
 * `node --import tsx bench/console-pages.mts` (DATABASE_URL for PostgreSQL): how long console pages take to
 * render with 100,000 charges in the account (issue 19: under 200 ms). Creates a charge, a recurring charge
 * (cobr) and a received Pix through the API, copies each 100,000 times by SQL (a bench fixture, not a code
 * path), signs in as the operator and times each page, median and worst of RUNS requests. Numbers go to
 * docs/console.md by hand.
 */
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, cobBody } from '../test/helpers/service.ts';
import { recBody } from '../test/pix/rec-fixtures.ts';
import { brasiliaDate, fromEpochDay, isBusinessDay, toEpochDay } from '../src/platform/calendar.ts';

const CHARGES = Number(process.env.CHARGES ?? 100_000);
const RUNS = 20;

const svc = await startTestService();
const base = `${svc.service.ctx.pages.url}/console`;

function request(method: string, url: string, body?: string, cookie = '') {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const r = https.request(
      base + url,
      {
        method,
        rejectUnauthorized: false,
        headers: { cookie, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    r.on('error', reject);
    if (body) r.write(body);
    r.end();
  });
}

try {
  const token = await svc.demo.token();
  const created = await svc.demo.http.request('POST', '/v2/cob', {
    token,
    body: cobBody(svc.demo.chaves[0], '123.45', { devedor: { nome: 'Bench', cpf: '12345678909' } }),
  });
  const t0 = Date.now();
  await svc.service.ctx.db.query(
    `insert into charges (account_id, txid, kind, revisao, status, created_at, updated_at, amount_cents, chave, devedor_cpf, devedor_cnpj, body)
     select account_id, 'bench' || lpad(g::text, 21, '0'), kind, 0, status, created_at - g * interval '1 second',
            updated_at, amount_cents, chave, devedor_cpf, devedor_cnpj, body
       from charges, generate_series(1, $2::int) g where txid = $1`,
    [created.body.txid, CHARGES],
  );
  const api = (method: string, url: string, body?: unknown) => svc.demo.http.request(method, url, { token, body });
  const paidCob = await api('POST', '/v2/cob', cobBody(svc.demo.chaves[0], '9.99'));
  const paid = await api('POST', '/sandbox/pix/pay', { txid: paidCob.body.txid });
  // Received Pix 25 s apart: 100,000 of them fill the Pix page's default 30 days (about 3,500 a day).
  await svc.service.ctx.db.query(
    `insert into received_pix (end_to_end_id, account_id, txid, chave, amount_cents, received_at, pagador_cpf,
       pagador_cnpj, pagador_nome, info_pagador, origin)
     select end_to_end_id || g, account_id, txid, chave, amount_cents, received_at - g * interval '25 seconds',
            pagador_cpf, pagador_cnpj, pagador_nome, info_pagador, origin
       from received_pix, generate_series(1, $2::int) g where end_to_end_id = $1`,
    [paid.body.endToEndId, CHARGES],
  );
  const today = brasiliaDate(new Date());
  const rec = await api(
    'POST',
    '/v2/rec',
    recBody({ calendario: { dataInicial: today, periodicidade: 'SEMANAL' }, valor: { valorRec: '30.00' } }),
  );
  await api('POST', `/sandbox/rec/${rec.body.idRec}/aprovar`);
  let due = toEpochDay(today) + 4;
  while (!isBusinessDay(due)) due++;
  const { rows } = await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [
    svc.demo.accountId,
  ]);
  const cobr = await api('PUT', '/v2/cobr/BenchCobr0000000000000000000', {
    idRec: rec.body.idRec,
    calendario: { dataDeVencimento: fromEpochDay(due) },
    valor: { original: '30.00' },
    ajusteDiaUtil: false,
    recebedor: { conta: rows[0].conta, tipoConta: 'PAGAMENTO', agencia: '0001' },
    devedor: { cpf: '45164632481', nome: 'Fulano de Tal' },
  });
  if (cobr.status !== 201) throw new Error(`cobr: ${cobr.status} ${cobr.text}`);
  await svc.service.ctx.db.query(
    `insert into recurring_charges (account_id, recurrence_id, txid, status, body, amount_cents, due_date, atualizacao,
       tentativas, created_at, updated_at)
     select account_id, recurrence_id, 'benchcobr' || lpad(g::text, 20, '0'), status, body, amount_cents, due_date,
            atualizacao, tentativas, created_at - g * interval '1 second', updated_at
       from recurring_charges, generate_series(1, $1::int) g where txid = 'BenchCobr0000000000000000000'`,
    [CHARGES],
  );
  for (const table of ['charges', 'received_pix', 'recurring_charges'])
    await svc.service.ctx.db.query(`analyze ${table}`);
  console.log(
    `inserted ${CHARGES} charges, cobr and received Pix each in ${Date.now() - t0} ms (${svc.service.ctx.db.kind})`,
  );

  const signin = await request('GET', '/signin');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(signin.text)![1];
  const secret = JSON.parse(fs.readFileSync(path.join(svc.config.dataDir, 'operator.json'), 'utf8')).secret;
  const signed = await request('POST', '/signin', `_csrf=${csrf}&secret=${secret}`, `pixd_console_signin=${csrf}`);
  const cookies = signed.headers['set-cookie'] as string[];
  const session = cookies.find((c) => c.startsWith('pixd_console='))!.split(';')[0];

  const middle = new Date(Date.now() - (CHARGES / 2) * 1000).toISOString();
  const pages: [string, string][] = [
    ['charges, first page', '/charges'],
    ['charges, a page in the middle (cursor)', `/charges?before=${middle}_999999999`],
    ['charges, by txid', `/charges?txid=bench${String(CHARGES / 2).padStart(21, '0')}`],
    ['charges, status with no match (walks the account)', '/charges?status=CONCLUIDA'],
    ['charges, payer document', '/charges?doc=12345678909'],
    ['charges, a day', `/charges?from=${middle.slice(0, 10)}&to=${middle.slice(0, 10)}`],
    ['charge page', `/charges/cob/${created.body.txid}`],
    ['cobr, first page', '/charges?kind=cobr'],
    ['cobr, a page in the middle (cursor)', `/charges?kind=cobr&before=${middle}_999999999`],
    ['cobr, by txid', `/charges?kind=cobr&txid=benchcobr${String(CHARGES / 2).padStart(20, '0')}`],
    ['Pix, first page (30 days)', '/pix'],
    [
      'Pix, a page in the middle (cursor)',
      `/pix?rbefore=${new Date(Date.now() - (CHARGES / 2) * 25_000).toISOString()}_999999999`,
    ],
    ['overview', ''],
    ['webhooks', '/webhooks'],
  ];
  for (const [name, url] of pages) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now();
      const res = await request('GET', url, undefined, session);
      times.push(performance.now() - start);
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    times.sort((a, b) => a - b);
    console.log(`${name}: median ${times[RUNS / 2].toFixed(1)} ms, worst ${times.at(-1)!.toFixed(1)} ms`);
  }
} finally {
  await svc.close();
}
