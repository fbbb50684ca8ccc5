import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount } from '../../src/accounts/service.ts';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';

const basic = (id: string, secret: string) => ({
  authorization: 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64'),
});
const grant = { grant_type: 'client_credentials' };

describe('authentication', () => {
  let svc: TestService;
  let other: Party;
  /** Tokens live on wall time: the test moves its own wall clock to expire one. */
  let wallOffsetMs = 0;
  before(async () => {
    svc = await startTestService({}, { wallClockMs: () => Date.now() + wallOffsetMs });
    other = await svc.newParty({ nome: 'Outra Empresa Ltda' });
  });
  after(() => svc.close());

  it('issues a bearer token over mutual TLS with HTTP Basic credentials', async () => {
    const res = await svc.demo.http.request('POST', '/oauth/token', {
      body: grant,
      headers: basic(svc.demo.clientId, svc.demo.clientSecret),
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.expires_in, 3600);
    assert.match(res.body.access_token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.ok(res.body.scope.split(' ').includes('cob.write'));
  });

  it('accepts the form-encoded token request too', async () => {
    const res = await svc.demo.http.request('POST', '/oauth/token', {
      rawBody: 'grant_type=client_credentials',
      headers: {
        ...basic(svc.demo.clientId, svc.demo.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
    });
    assert.equal(res.status, 200);
  });

  it('refuses a token request without a client certificate', async () => {
    const res = await svc.anonymous.request('POST', '/oauth/token', {
      body: grant,
      headers: basic(svc.demo.clientId, svc.demo.clientSecret),
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_client');
  });

  it("refuses a token request carrying another application's certificate", async () => {
    const res = await other.http.request('POST', '/oauth/token', {
      body: grant,
      headers: basic(svc.demo.clientId, svc.demo.clientSecret),
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_client');
  });

  it('refuses a wrong secret, an unknown client and missing credentials', async () => {
    for (const headers of [basic(svc.demo.clientId, 'wrong'), basic('Client_Id_unknown', 'x'), {}]) {
      const res = await svc.demo.http.request('POST', '/oauth/token', { body: grant, headers });
      assert.equal(res.status, 401);
      assert.equal(res.body.error, 'invalid_client');
    }
  });

  it('refuses other grant types', async () => {
    const res = await svc.demo.http.request('POST', '/oauth/token', {
      body: { grant_type: 'password' },
      headers: basic(svc.demo.clientId, svc.demo.clientSecret),
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'unsupported_grant_type');
  });

  it('requires the bearer token on Pix routes', async () => {
    const res = await svc.demo.http.request('GET', '/v2/cob/abcdefghijklmnopqrstuvwxyz123');
    assert.equal(res.status, 401);
    assert.match(res.body.type, /\/Unauthorized$/);
  });

  it('requires the client certificate on Pix routes even with a valid token', async () => {
    const res = await svc.anonymous.request('GET', '/v2/cob/abcdefghijklmnopqrstuvwxyz123', {
      token: await svc.demo.token(),
    });
    assert.equal(res.status, 401);
  });

  it("refuses a token presented with another application's certificate", async () => {
    const res = await other.http.request('GET', '/v2/cob/abcdefghijklmnopqrstuvwxyz123', {
      token: await svc.demo.token(),
    });
    assert.equal(res.status, 403);
    assert.match(res.body.type, /\/AcessoNegado$/);
  });

  it('refuses a tampered token, including another spelling of the same signature bytes', async () => {
    const token = await svc.demo.token();
    const other = (c: string, choices: string) => [...choices].find((x) => x !== c)!;
    const path = '/v2/cob/abcdefghijklmnopqrstuvwxyz123';
    const tampered = token.slice(0, -2) + other(token.at(-2)!, 'xy') + token.at(-1);
    assert.equal((await svc.demo.http.request('GET', path, { token: tampered })).status, 401);
    // A 32-byte HMAC in base64url leaves the last character 2 spare bits: flipping one keeps the bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token.at(-1)!);
    const respelled = token.slice(0, -1) + alphabet[last ^ 1];
    assert.equal((await svc.demo.http.request('GET', path, { token: respelled })).status, 401);
    assert.equal((await svc.demo.http.request('GET', path, { token })).status, 404, 'the token as issued still works');
  });

  it('expires tokens on real time, never on the sandbox clock', async () => {
    const fresh = await svc.newParty();
    const token = await fresh.token();
    const read = () => fresh.http.request('GET', '/v2/cob/abcdefghijklmnopqrstuvwxyz123', { token });
    assert.equal((await read()).status, 404);
    svc.advance(2 * 86_400);
    try {
      assert.equal((await read()).status, 404, 'moving the service clock two days expires no token');
    } finally {
      svc.advance(-2 * 86_400);
    }
    wallOffsetMs = 3601 * 1000;
    try {
      const res = await read();
      assert.equal(res.status, 401);
      assert.match(res.body.detail, /expirado/);
    } finally {
      wallOffsetMs = 0;
    }
  });

  it('enforces the route scope', async () => {
    const reader = await svc.newParty({ scopes: ['cob.read'] });
    const token = await reader.token();
    const write = await reader.http.request('POST', '/v2/cob', { token, body: cobBody(reader.chaves[0]) });
    assert.equal(write.status, 403);
    assert.match(write.body.type, /\/AcessoNegado$/);
    assert.match(write.body.detail, /cob\.write/);
    const read = await reader.http.request('GET', '/v2/cob?inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z', {
      token,
    });
    assert.equal(read.status, 200);
  });

  it('keeps the sandbox tools behind their own scope: held by default only in the sandbox, held by the demo application', async () => {
    const reader = await svc.newParty({ scopes: ['cob.read'] });
    const plain = await createAccount(svc.service.ctx.db, svc.service.ctx.pki, svc.clock, {}, 'production');
    assert.ok(!plain.scopes.includes('sandbox.write'), 'production keeps the sandbox tools out of the defaults');
    assert.match(plain.account.nome, /^Conta \d{8}$/, "a name of its own, not the demo account's");
    const sandbox = await createAccount(svc.service.ctx.db, svc.service.ctx.pki, svc.clock, {}, 'sandbox');
    assert.ok(sandbox.scopes.includes('sandbox.write'), 'a new sandbox account may use the sandbox tools');
    const token = await reader.token();
    for (const [method, path, body] of [
      ['POST', '/sandbox/clock/advance', { segundos: 86_400 }],
      ['GET', '/sandbox/clock', undefined],
      ['POST', '/sandbox/pix/pay', { chave: reader.chaves[0], valor: '1.00' }],
    ] as const) {
      const res = await reader.http.request(method, path, { token, body });
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.match(res.body.detail, /sandbox\.write/);
    }
    assert.equal(svc.clock.accountOffsetMs(reader.accountId), 0, "the reader's clock did not move");
    const moved = await svc.service.ctx.db.query('select 1 from sandbox_clocks where account_id = $1', [
      reader.accountId,
    ]);
    assert.equal(moved.rows.length, 0, 'nor in the database');
    const demo = await svc.demo.http.request('GET', '/sandbox/clock', { token: await svc.demo.token() });
    assert.equal(demo.status, 200, demo.text);
  });

  it('issues billing tokens without a client certificate, not usable on Pix routes', async () => {
    const res = await svc.anonymous.request('POST', '/v1/authorize', {
      body: grant,
      headers: basic(svc.demo.clientId, svc.demo.clientSecret),
    });
    assert.equal(res.status, 200);
    const pix = await svc.demo.http.request('GET', '/v2/cob/abcdefghijklmnopqrstuvwxyz123', {
      token: res.body.access_token,
    });
    assert.equal(pix.status, 401);
  });

  it('keeps accounts apart: another account sees 404, never 403', async () => {
    const created = await svc.demo.http.request('POST', '/v2/cob', {
      token: await svc.demo.token(),
      body: cobBody(svc.demo.chaves[0]),
    });
    assert.equal(created.status, 201);
    const token = await other.token();
    const read = await other.http.request('GET', `/v2/cob/${created.body.txid}`, { token });
    assert.equal(read.status, 404);
    const patch = await other.http.request('PATCH', `/v2/cob/${created.body.txid}`, {
      token,
      body: { solicitacaoPagador: 'x' },
    });
    assert.equal(patch.status, 404);
    const list = await other.http.request('GET', '/v2/cob?inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z', {
      token,
    });
    assert.equal(list.body.cobs.length, 0);
    const foreignKey = await other.http.request('POST', '/v2/cob', { token, body: cobBody(svc.demo.chaves[0]) });
    assert.equal(foreignKey.status, 400);
    assert.equal(foreignKey.body.violacoes[0].propriedade, 'cob.chave');
  });

  it('accepts the x-skip-mtls-checking header the official SDK sends', async () => {
    const res = await svc.demo.http.request('GET', '/v2/cob?inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z', {
      token: await svc.demo.token(),
      headers: { 'x-skip-mtls-checking': 'true' },
    });
    assert.equal(res.status, 200);
  });
});
