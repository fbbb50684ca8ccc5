/**
 * Payment tokens: the public routes payment-token-efi calls, their shapes and errors, and the rule that a card
 * number is never stored or logged in clear (the log output at trace level and every table are searched).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { OffsetClock } from '../../src/platform/clock.ts';
import { startService, type RunningService } from '../../src/runtime.ts';
import { HttpsClient } from '../helpers/https-client.ts';
import { freePort } from '../helpers/service.ts';
import { seededData } from '../../src/testing/template.ts';
import { billingApi, CARDS, cardCiphertext, cardData, cardPayment, items, paymentToken } from './helpers.ts';

let service: RunningService;
let http: HttpsClient;
let logs = '';
let dropDb: (() => Promise<void>) | undefined;
let dataDir: string;

before(async () => {
  const port = String(await freePort());
  // The data directory (and database) of a first start, copied from the test template.
  const seeded = await seededData(`https://127.0.0.1:${port}`, { adminUrl: process.env.DATABASE_URL });
  dataDir = seeded.dataDir;
  dropDb = seeded.discard;
  const config = loadConfig({
    PIXD_DATA_DIR: dataDir,
    PORT: port,
    // A free port of its own: PORT + 1 may be another test's (a fresh-clone run failed its start on it).
    PIXD_PAGES_PORT: '0',
    PIXD_ENV: 'sandbox',
    ...(seeded.databaseUrl && { DATABASE_URL: seeded.databaseUrl }),
  });
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk.toString();
      done();
    },
  });
  service = await startService(config, { clock: new OffsetClock(), logger: { level: 'trace', stream } });
  http = new HttpsClient(service.credentials.baseUrl, fs.readFileSync(service.credentials.caCertificate, 'utf8'), null);
});
after(async () => {
  http.close();
  await service.close();
  await dropDb?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const payee = () => service.credentials.account.payeeCode;
const party = () => ({
  clientId: service.credentials.clientId,
  clientSecret: service.credentials.clientSecret,
  payeeCode: payee(),
  accountId: 0,
});

describe('payment-token routes', () => {
  it('GET /v1/pubkey?code= answers {code: 200, data: base64 SPKI} with CORS; unknown account 401', async () => {
    const res = await http.request('GET', `/v1/pubkey?code=${payee()}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 200);
    assert.match(res.body.data, /^MII[A-Za-z0-9+/=]+$/);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const preflight = await http.request('OPTIONS', `/v1/card/${payee()}/jsonp`, {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.status, 204);
    const unknown = await http.request('GET', `/v1/pubkey?code=${'0'.repeat(32)}`);
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error, 'invalid_account');
  });

  it('installments (browser and server): {rate, name, installments[...]}; unknown brand is invalid_brand 3500056', async () => {
    const res = await http.request('GET', `/v1/installments/${payee()}/jsonp?brand=mastercard&total=10000`);
    assert.equal(res.body.code, 200);
    assert.equal(res.body.data.name, 'mastercard');
    assert.deepEqual(res.body.data.installments[1], {
      installment: 2,
      has_interest: true,
      value: 5199,
      currency: '51,99',
      interest_percentage: 199,
    });
    const bad = await http.request('GET', `/v1/installments/${payee()}/jsonp?brand=hipercard&total=10000`);
    assert.deepEqual([bad.status, bad.body.code, bad.body.error], [400, 3500056, 'invalid_brand']);
    const server = await billingApi(http, party()).ok('GET', '/v1/installments?brand=elo&total=300');
    assert.equal(server.data.installments[0].value, 300);
  });

  it('GET /v1/card/:payee_code/jsonp?data= gives {payment_token, card_mask}; wrong brand, expired card, garbage refused', async () => {
    const data = await cardCiphertext(http, payee(), cardData(CARDS.mastercard));
    const res = await http.request('GET', `/v1/card/${payee()}/jsonp?${new URLSearchParams({ data })}`);
    assert.equal(res.body.code, 200);
    assert.equal(res.body.data.card_mask, 'XXXXXXXXXXXX8884');
    assert.match(res.body.data.payment_token, /^[0-9a-f]{40}$/);
    const wrongBrand = await cardCiphertext(http, payee(), cardData(CARDS.mastercard, { brand: 'visa' }));
    assert.equal(
      (await http.request('GET', `/v1/card/${payee()}/jsonp?${new URLSearchParams({ data: wrongBrand })}`)).body.code,
      3500056,
    );
    const expired = await cardCiphertext(http, payee(), cardData(CARDS.approved, { expiration_year: '2020' }));
    assert.equal(
      (await http.request('GET', `/v1/card/${payee()}/jsonp?${new URLSearchParams({ data: expired })}`)).body.error,
      'expired_card',
    );
    const garbage = await http.request(
      'GET',
      `/v1/card/${payee()}/jsonp?data=${Buffer.from('not encrypted').toString('base64')}`,
    );
    assert.deepEqual([garbage.status, garbage.body.error], [400, 'invalid_card_data']);
  });

  it('no server route accepts raw card data', async () => {
    const api = billingApi(http, party());
    for (const [method, url] of [
      ['POST', '/v1/card'],
      ['POST', '/v1/payment-token'],
      ['POST', `/v1/card/${payee()}/jsonp`],
    ] as const) {
      const res = await api.call(method, url, { number: CARDS.approved, cvv: '123' });
      assert.equal(res.status, 404, `${method} ${url}`);
    }
  });

  it('after payments, no card number appears in the log output or in any table', async () => {
    const api = billingApi(http, party());
    const numbers = [CARDS.approved, CARDS.invalidData, CARDS.mastercard];
    for (const number of numbers)
      await api.ok('POST', '/v1/charge/one-step', { items, ...cardPayment(await paymentToken(http, payee(), number)) });
    assert.ok(logs.includes('/v1/card/'), 'requests were logged');
    for (const number of numbers) assert.ok(!logs.includes(number), `${number} in the log`);
    const { rows: tables } = await service.ctx.db.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public'`,
    );
    for (const { table_name } of tables) {
      const { rows } = await service.ctx.db.query<{ dump: string }>(
        `select coalesce(string_agg(t::text, ' '), '') as dump from ${table_name} t`,
      );
      for (const number of numbers) {
        assert.ok(!rows[0].dump.includes(number), `${number} in ${table_name}`);
        assert.ok(!rows[0].dump.includes(number.slice(0, 12)), `card prefix in ${table_name}`);
      }
    }
  });
});
