/** Random keys (/v2/gn/evp): create under the per-account limit, list, remove for good, and what removal does. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS } from '../../src/platform/limits.ts';
import { insertRandomKey } from '../../src/pix/evp/store.ts';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { overLimit } from '../helpers/burst.ts';

const FROZEN_WALL_MS = Date.UTC(2026, 0, 1);
import { payloadAt } from './payload-fixtures.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('random keys (/v2/gn/evp)', () => {
  let svc: TestService;

  before(async () => {
    // Rate-limit windows follow this frozen wall clock, so a burst is counted in one second.
    svc = await startTestService({}, { wallClockMs: () => FROZEN_WALL_MS });
  });
  after(() => svc.close());

  const as = (party: Party) => async (method: string, path: string, body?: unknown) =>
    party.http.request(method, path, { token: await party.token(), body });

  it('creates a UUID key, lists only active random keys, removes it (200) and answers chave_nao_encontrada after', async () => {
    const party = await svc.newParty();
    const call = as(party);
    const created = await call('POST', '/v2/gn/evp');
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body), ['chave']);
    assert.match(created.body.chave, UUID_V4);

    assert.deepEqual((await call('GET', '/v2/gn/evp')).body, { chaves: [party.chaves[0], created.body.chave] });
    await svc.service.ctx.db.query(
      `insert into pix_keys (chave, account_id, tipo, created_at) values ('loja@example.com', $1, 'email', now())`,
      [party.accountId],
    );
    assert.deepEqual(
      (await call('GET', '/v2/gn/evp')).body.chaves,
      [party.chaves[0], created.body.chave],
      'random keys only',
    );

    const removed = await call('DELETE', `/v2/gn/evp/${created.body.chave}`);
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual((await call('GET', '/v2/gn/evp')).body.chaves, [party.chaves[0]]);

    for (const chave of [created.body.chave, 'loja@example.com', 'd2a1c7e0-0000-4000-8000-000000000000']) {
      const again = await call('DELETE', `/v2/gn/evp/${encodeURIComponent(chave)}`);
      assert.equal(again.status, 404, `${chave}: ${again.text}`);
      assert.equal(again.body.nome, 'chave_nao_encontrada');
      assert.equal(typeof again.body.mensagem, 'string');
    }
  });

  it("cannot see or remove another account's key", async () => {
    const [owner, other] = [await svc.newParty(), await svc.newParty()];
    const res = await as(other)('DELETE', `/v2/gn/evp/${owner.chaves[0]}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.nome, 'chave_nao_encontrada');
    assert.deepEqual((await as(other)('GET', '/v2/gn/evp')).body.chaves, [other.chaves[0]]);
    assert.deepEqual((await as(owner)('GET', '/v2/gn/evp')).body.chaves, [owner.chaves[0]]);
  });

  it('enforces the DICT limit per account: 20 keys for a CNPJ account, 5 for a CPF account, removed keys not counted', async () => {
    const company = await svc.newParty({ documento: '11222333000181' });
    const person = await svc.newParty({ documento: '52998224725' });
    for (const [party, limit] of [
      [company, LIMITS.pixKeysMaxPerAccountLegalPerson],
      [person, LIMITS.pixKeysMaxPerAccountNaturalPerson],
    ] as const) {
      const call = as(party);
      for (let i = 1; i < limit; i++) assert.equal((await call('POST', '/v2/gn/evp')).status, 201);
      const over = await call('POST', '/v2/gn/evp');
      assert.equal(over.status, 400, over.text);
      assert.equal(over.body.nome, 'limite_criacao_chave_atingido');
      const chaves: string[] = (await call('GET', '/v2/gn/evp')).body.chaves;
      assert.equal(chaves.length, limit);
      assert.equal((await call('DELETE', `/v2/gn/evp/${chaves[1]}`)).status, 200);
      assert.equal((await call('POST', '/v2/gn/evp')).status, 201, 'a removed key frees its place');
      assert.equal((await call('POST', '/v2/gn/evp')).body.nome, 'limite_criacao_chave_atingido');
    }
  });

  it('holds the limit under concurrent creations', async () => {
    const person = await svc.newParty({ documento: '52998224725' });
    const call = as(person);
    const results = await Promise.all(Array.from({ length: 12 }, () => call('POST', '/v2/gn/evp')));
    assert.equal(results.filter((r) => r.status === 201).length, LIMITS.pixKeysMaxPerAccountNaturalPerson - 1);
    assert.ok(results.filter((r) => r.status !== 201).every((r) => r.body.nome === 'limite_criacao_chave_atingido'));
    assert.equal((await call('GET', '/v2/gn/evp')).body.chaves.length, LIMITS.pixKeysMaxPerAccountNaturalPerson);
  });

  it('never creates a removed key again: the row stays and an insert of the same chave is refused', async () => {
    const party = await svc.newParty();
    const chave = party.chaves[0];
    assert.equal((await as(party)('DELETE', `/v2/gn/evp/${chave}`)).status, 200);
    const { rows } = await svc.service.ctx.db.query<{ removed_at: Date | null }>(
      'select removed_at from pix_keys where chave = $1',
      [chave],
    );
    assert.ok(rows[0].removed_at, 'the removed key keeps its row');
    const inserted = await svc.service.ctx.db.tx((sql) =>
      insertRandomKey(sql, party.accountId, chave, svc.clock.now()),
    );
    assert.equal(inserted, false, 'creation refuses an existing chave, removed or not');
    assert.ok(!(await as(party)('GET', '/v2/gn/evp')).body.chaves.includes(chave));
  });

  it('makes charges for a removed key unpayable, says so in their payload, and refuses the key everywhere', async () => {
    const party = await svc.newParty();
    const call = as(party);
    const chave = (await call('POST', '/v2/gn/evp')).body.chave as string;
    const cob = await call('POST', '/v2/cob', cobBody(chave, '40.00'));
    assert.equal(cob.status, 201, cob.text);
    assert.equal((await payloadAt(svc, cob.body.location)).payload.status, 'ATIVA');

    assert.equal((await call('DELETE', `/v2/gn/evp/${chave}`)).status, 200);
    assert.equal((await payloadAt(svc, cob.body.location)).payload.status, 'REMOVIDA_PELO_PSP');
    const byTxid = await call('POST', '/sandbox/pix/pay', { txid: cob.body.txid });
    assert.equal(byTxid.status, 400);
    assert.equal(byTxid.body.violacoes[0].razao, 'chave_removida');
    const byCode = await call('POST', '/sandbox/pix/pay', { pixCopiaECola: cob.body.pixCopiaECola });
    assert.equal(byCode.body.violacoes[0].razao, 'chave_removida');
    const byKey = await call('POST', '/sandbox/pix/pay', { chave, valor: '1.00' });
    assert.equal(byKey.body.violacoes[0].razao, 'chave_inexistente');
    const newCharge = await call('POST', '/v2/cob', cobBody(chave, '40.00'));
    assert.equal(newCharge.status, 400, 'no new charge for a removed key');
    assert.equal(
      (await call('GET', `/v2/cob/${cob.body.txid}`)).body.status,
      'ATIVA',
      'the stored charge is untouched',
    );
  });

  it('requires the gn.pix.evp scopes, a client certificate, and rate-limits creation', async () => {
    const reader = await svc.newParty({ scopes: ['gn.pix.evp.read'] });
    assert.equal((await as(reader)('GET', '/v2/gn/evp')).status, 200);
    const denied = await as(reader)('POST', '/v2/gn/evp');
    assert.equal(denied.status, 403);
    assert.equal((await as(reader)('DELETE', `/v2/gn/evp/${reader.chaves[0]}`)).status, 403);
    const writer = await svc.newParty({ scopes: ['gn.pix.evp.write'] });
    assert.equal((await as(writer)('GET', '/v2/gn/evp')).status, 403);
    const noCert = await svc.anonymous.request('GET', '/v2/gn/evp', { token: await writer.token() });
    assert.equal(noCert.status, 401);

    // Past the key limit creation answers 400, but every request still counts against the rate limit.
    const result = await overLimit(() => as(writer)('POST', '/v2/gn/evp'));
    assert.equal(result.count(429), 1);
    assert.deepEqual(result.retryAfter, ['1']);
    assert.equal(
      (await as(writer)('DELETE', `/v2/gn/evp/${writer.chaves[0]}`)).status,
      200,
      'DELETE is not under the listed rate limit',
    );
  });

  it('accepts POST with an empty JSON body, as clients that always send a content type do', async () => {
    const party = await svc.newParty();
    const res = await party.http.request('POST', '/v2/gn/evp', {
      token: await party.token(),
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 201, res.text);
    const malformed = await party.http.request('POST', '/v2/gn/evp', {
      token: await party.token(),
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.nome, 'json_invalido');
  });
});
