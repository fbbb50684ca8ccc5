/**
 * Subscription renewals at scale (issue 31, item 4): 10,000 card subscriptions renewing on the same day, the
 * account's clock moved past midnight of that day, and the time until every renewal is charged (its charge
 * answered by the issuer: approved). Goal: within a minute, on each database. Exactly once is checked after:
 * one renewal charge (parcel 2) per subscription, none with a parcel 3, and the ledger verifies.
 *
 * Fixtures (not measured) go through the API, concurrently: one plan, then POST /v1/plan/:id/subscription/one-step
 * per subscription, all paid with one reusable payment token (what a stored card is), so every subscription's
 * next execution is the same date a month ahead. The measurement starts with POST /sandbox/clock/advance to
 * a minute past 00:00 (Brasília) of that date, when each subscription's `billing.subscription.renew` job falls
 * due on the account clock, and ends when a count finds every renewal charge approved (polled every POLL_MS).
 *
 * Standalone: `node --import tsx bench/scenarios/subscription-renewals.ts` runs PostgreSQL (BENCH_PG_URL; a
 * fresh database, dropped after) and then the embedded PGlite; BENCH_RENEWALS=<n> changes the number, and
 * BENCH_RENEWAL_DATABASES=postgres or =pglite runs one of them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { constants, publicEncrypt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../src/platform/db/database.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/runtime.ts';
import { describeVerification, verifyLedger } from '../../src/platform/ledger/verify.ts';
import { sandboxOnFreshDatabase } from '../postgres.ts';
import { runIfMain } from '../lifecycle.ts';
import { describeMachine } from '../machine.ts';
import { writeNotesSection } from '../notes-section.ts';
import { keepAliveSender } from '../https-json.ts';
import { client } from './balance-history.ts';

const SETTINGS = {
  subscriptions: Number(process.env.BENCH_RENEWALS || 10_000),
  databases: (process.env.BENCH_RENEWAL_DATABASES || 'postgres,pglite').split(','),
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/performance.md',
  fixtureConcurrency: 16,
  goalMs: 60_000,
  timeoutMs: 600_000,
};
const POLL_MS = 200;
const log = (line: string) => process.stderr.write(`bench subscription-renewals: ${line}\n`);
const CUSTOMER = { name: 'Gorbadoc Oldbuck', cpf: '94271564656', email: 'oldbuck@example.com' };

/** The billing API's client: a billing token from /v1/authorize (HTTP Basic), no client certificate needed. */
function billingClient(service: RunningService) {
  const { send, close } = keepAliveSender(service);
  const basic = `Basic ${Buffer.from(`${service.credentials.clientId}:${service.credentials.clientSecret}`).toString('base64')}`;
  let token: string | undefined;
  return {
    async must(method: string, urlPath: string, body?: unknown): Promise<any> {
      token ??= (await send('POST', '/v1/authorize', { grant_type: 'client_credentials' }, basic)).body.access_token;
      let res = await send(method, urlPath, body, `Bearer ${token}`);
      // A shared machine: a request past the server's deadline (503) or rate limited (429) wrote nothing; again.
      while (res.status === 503 || res.status === 429) {
        await sleep(50);
        res = await send(method, urlPath, body, `Bearer ${token}`);
      }
      if (res.status !== 200)
        throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      return res.body;
    },
    close,
  };
}

/** A reusable payment token for an approving sandbox card, made as the browser library makes one. */
async function reusableToken(api: ReturnType<typeof billingClient>, payeeCode: string): Promise<string> {
  const key = (await api.must('GET', `/v1/pubkey?code=${payeeCode}`)).data;
  const card = {
    brand: 'visa',
    number: '4012001038443335',
    cvv: '123',
    expiration_month: '12',
    expiration_year: String(new Date().getUTCFullYear() + 3),
    holder_name: 'Gorbadoc Oldbuck',
    holder_document: CUSTOMER.cpf,
    reuse: true,
  };
  const data = publicEncrypt(
    { key: `-----BEGIN PUBLIC KEY-----\n${key}\n-----END PUBLIC KEY-----\n`, padding: constants.RSA_PKCS1_PADDING },
    Buffer.from(JSON.stringify(card)),
  ).toString('base64');
  return (await api.must('GET', `/v1/card/${payeeCode}/jsonp?${new URLSearchParams({ data })}`)).data.payment_token;
}

async function pool(n: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

async function count(db: Database, sql: string, params: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: string }>(sql, params);
  return Number(rows[0].n);
}

/** A sandbox pixd on the embedded PGlite in a fresh data directory. */
async function sandboxOnPglite() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-bench-renewals-'));
  const config = loadConfig({
    PIXD_DATA_DIR: dataDir,
    PORT: '0',
    PIXD_PAGES_PORT: '0',
    PIXD_ENV: 'sandbox',
    LOG_LEVEL: 'silent',
  });
  const service = await startService(config, { logger: false });
  return {
    service,
    database: { version: 'embedded' },
    async close() {
      await service.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Row {
  database: string;
  renewed: number;
  seconds: number;
  exactlyOnce: boolean;
  ledger: boolean;
  fixturesS: number;
  note: string;
}

async function runOn(kind: string): Promise<Row> {
  const bench =
    kind === 'pglite' ? await sandboxOnPglite() : await sandboxOnFreshDatabase(SETTINGS.adminUrl, 'renewals');
  const { service } = bench;
  const db = service.ctx.db;
  const pix = client(service);
  const api = billingClient(service);
  try {
    const { rows } = await db.query<{ account_id: number; payee_code: string }>(
      'select a.id as account_id, a.payee_code from applications p join accounts a on a.id = p.account_id where p.client_id = $1',
      [service.credentials.clientId],
    );
    const { account_id: accountId, payee_code: payeeCode } = rows[0];
    const n = SETTINGS.subscriptions;
    const fixturesStarted = performance.now();
    const plan = (await api.must('POST', '/v1/plan', { name: 'Bench mensal', interval: 1 })).data.plan_id;
    const payment_token = await reusableToken(api, payeeCode);
    await pool(n, SETTINGS.fixtureConcurrency, async (i) => {
      await api.must('POST', `/v1/plan/${plan}/subscription/one-step`, {
        items: [{ name: `Assinatura ${i}`, value: 2990 }],
        payment: { credit_card: { customer: CUSTOMER, payment_token } },
      });
    });
    const fixturesS = (performance.now() - fixturesStarted) / 1000;
    const dates = await db.query<{ next: string; n: string }>(
      `select to_char(next_execution, 'YYYY-MM-DD') as next, count(*) as n from billing_subscriptions where account_id = $1 group by 1`,
      [accountId],
    );
    if (dates.rows.length !== 1)
      throw new Error(`subscriptions renew on ${dates.rows.length} dates (fixtures crossed midnight)`);
    const renewalDate = dates.rows[0].next;
    log(`${kind}: ${n} subscriptions renewing ${renewalDate}, fixtures in ${fixturesS.toFixed(0)} s`);
    if (kind !== 'pglite') await db.query('vacuum analyze');

    const clockNow = Date.parse((await pix.call('GET', '/sandbox/clock')).body.agora);
    const midnight = Date.parse(`${renewalDate}T03:00:00Z`); // 00:00 in Brasília (UTC−3)
    const renewedSql = `select count(*) as n from billing_subscription_charges s join billing_charges c on c.id = s.charge_id
      where s.parcel = 2 and c.account_id = $1 and c.status <> 'new' and c.status <> 'waiting'`;
    const started = performance.now();
    const advanced = await pix.call('POST', '/sandbox/clock/advance', {
      segundos: Math.ceil((midnight - clockNow) / 1000) + 60,
    });
    if (advanced.status !== 200) throw new Error(`clock advance: ${advanced.status}`);
    let renewed = 0;
    while ((renewed = await count(db, renewedSql, [accountId])) < n) {
      if (performance.now() - started > SETTINGS.timeoutMs) break;
      await sleep(POLL_MS);
    }
    const seconds = (performance.now() - started) / 1000;
    const parcels = await db.query<{ parcel: number; n: string; subs: string }>(
      `select s.parcel, count(*) as n, count(distinct s.subscription_id) as subs from billing_subscription_charges s
        join billing_subscriptions b on b.id = s.subscription_id where b.account_id = $1 group by s.parcel order by s.parcel`,
      [accountId],
    );
    const byParcel = new Map(parcels.rows.map((r) => [Number(r.parcel), { n: Number(r.n), subs: Number(r.subs) }]));
    const exactlyOnce =
      byParcel.get(2)?.n === n && byParcel.get(2)?.subs === n && byParcel.get(1)?.n === n && !byParcel.has(3);
    const verification = await verifyLedger(db);
    log(
      `${kind}: ${renewed}/${n} renewals charged in ${seconds.toFixed(1)} s; exactly once ${exactlyOnce}; ledger ${verification.ok}`,
    );
    return {
      database: `${kind === 'pglite' ? 'PGlite' : 'PostgreSQL'} (${bench.database.version})`,
      renewed,
      seconds,
      exactlyOnce,
      ledger: verification.ok,
      fixturesS,
      note: verification.ok ? '' : describeVerification(verification),
    };
  } finally {
    pix.close();
    api.close();
    await bench.close();
  }
}

export async function runRenewalsBench(): Promise<void> {
  const machine = describeMachine();
  const loadAverage = os.loadavg()[0];
  const results: Row[] = [];
  for (const kind of SETTINGS.databases) results.push(await runOn(kind));
  const n = SETTINGS.subscriptions;
  writeNotesSection(
    SETTINGS.output,
    'subscription-renewals',
    [
      '### Subscription renewals on one day (billing, issue 31)',
      '',
      `Measured by \`node --import tsx bench/scenarios/subscription-renewals.ts\` on ${machine.date}: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, code ${machine.code}; 1-minute load average ${loadAverage.toFixed(2)} at the start (the machine is shared).`,
      `Fixtures through the API, ${SETTINGS.fixtureConcurrency} requests in flight (not measured): one monthly plan and ${n.toLocaleString('en')} card subscriptions made by \`POST /v1/plan/:id/subscription/one-step\` with one reusable payment token, all renewing on the same date.`,
      "Measured: from `POST /sandbox/clock/advance` to a minute past 00:00 (Brasília) of that date until a count finds every renewal charge answered by the issuer (approved): each subscription's `billing.subscription.renew` job makes its parcel-2 charge and charges the stored card, on the outbox.",
      '',
      '| database | subscriptions | renewals charged | seconds | renewals/s | exactly once | ledger verifies | within a minute (goal) | fixtures s |',
      '|---|---:|---:|---:|---:|---|---|---|---:|',
      ...results.map(
        (r) =>
          `| ${r.database} | ${n.toLocaleString('en')} | ${r.renewed.toLocaleString('en')} | ${r.seconds.toFixed(1)} | ${Math.round(r.renewed / r.seconds)} | ${r.exactlyOnce ? 'yes' : '**no**'} | ${r.ledger ? 'yes' : `**no** (${r.note})`} | ${r.renewed === n && r.seconds * 1000 < SETTINGS.goalMs ? 'yes' : '**no**'} | ${r.fixturesS.toFixed(0)} |`,
      ),
      '',
      'Exactly once: every subscription has one parcel-1 and one parcel-2 charge and none has a parcel 3 (the primary key (subscription, parcel) refuses a second charge of a parcel whatever the outbox retries).',
      '',
    ].join('\n'),
  );
  if (results.some((r) => !r.exactlyOnce || !r.ledger)) process.exitCode = 1;
}

await runIfMain(import.meta.url, log, runRenewalsBench);
