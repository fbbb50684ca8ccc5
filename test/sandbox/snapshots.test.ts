/**
 * `pixd snapshot save|restore|list|delete` (issue 33, item 4): the whole sandbox saved and put back, through a
 * running node's operator API and on a stopped node's database, with the real command. A restore brings back
 * charges, Pix, balances and clocks exactly as saved, and the ledger's invariants hold after it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, cobBody, type TestService } from '../helpers/service.ts';
import { webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { runPixd } from '../helpers/cli.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';

describe('pixd snapshot', () => {
  let svc: TestService;
  let api: WebhookApi;
  const period = 'inicio=2000-01-01T00:00:00Z&fim=2100-01-01T00:00:00Z';
  const cli = async (...args: string[]) => {
    const run = await runPixd(['snapshot', ...args, '--data-dir', svc.data.dataDir], {
      DATABASE_URL: svc.data.databaseUrl,
    });
    return run;
  };
  const ok = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await api.call(method, path, body);
    assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
    return res.body;
  };
  const state = async () => ({
    saldo: (await ok('GET', '/v2/gn/saldo/')).saldo,
    txids: ((await ok('GET', `/v2/cob?${period}`)).cobs as { txid: string; status: string }[])
      .map((c) => `${c.txid}:${c.status}`)
      .sort(),
    clock: (await ok('GET', '/sandbox/clock')).deslocamentoSegundos,
  });

  before(async () => {
    svc = await startTestService();
    api = webhookApi(svc.demo);
  });
  after(() => svc?.close());

  it('saves and restores a running sandbox through its operator API', async () => {
    const paid = await ok('POST', '/v2/cob', cobBody(svc.demo.chaves[0], '40.00'), 201);
    await ok('POST', '/sandbox/pix/pay', { txid: paid.txid }, 201);
    await ok('POST', '/v2/cob', cobBody(svc.demo.chaves[0], '15.00'), 201);
    await ok('POST', '/sandbox/clock/advance', { segundos: 3_600 });
    const saved = await state();

    const save = await cli('save', 'antes', '--json');
    assert.equal(save.status, 0, save.stderr);
    assert.equal(JSON.parse(save.stdout).name, 'antes');
    assert.equal((await cli('save', 'antes')).status, 1, 'a name is saved once');

    // Everything after the snapshot: more money, charges, a moved clock.
    const later = await ok('POST', '/v2/cob', cobBody(svc.demo.chaves[0], '99.00'), 201);
    await ok('POST', '/sandbox/pix/pay', { txid: later.txid }, 201);
    await ok('POST', '/sandbox/clock/advance', { segundos: 86_400 });
    assert.notDeepEqual(await state(), saved);

    const restore = await cli('restore', 'antes');
    assert.equal(restore.status, 0, restore.stderr);
    assert.match(restore.stdout, /restored snapshot antes/);
    assert.deepEqual(await state(), saved);
    assert.equal((await api.call('GET', `/v2/cob/${later.txid}`)).status, 404);
    await assertLedgerBalanced(svc.service.ctx.db);

    // The node goes on from the restored state: new charges get ids again and are paid.
    const next = await ok('POST', '/v2/cob', cobBody(svc.demo.chaves[0], '11.50'), 201);
    await ok('POST', '/sandbox/pix/pay', { txid: next.txid }, 201);
    await assertLedgerBalanced(svc.service.ctx.db);

    const listed = await cli('list');
    assert.match(listed.stdout, /^antes\s/m);
    assert.equal((await cli('delete', 'antes')).status, 0);
    assert.match((await cli('list')).stdout, /no snapshots yet/);
    const missing = await cli('restore', 'antes');
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no snapshot "antes"/);
  });

  it('refuses a name that cannot be a snapshot', async () => {
    const bad = await cli('save', 'Não; drop table accounts');
    assert.equal(bad.status, 1);
    assert.doesNotMatch(bad.stderr, /at .*\.ts:\d+/, 'one line, no stack');
  });

  it('saves and restores a stopped sandbox on its database directly', async () => {
    const kept = await ok('POST', '/v2/cob', cobBody(svc.demo.chaves[0], '17.77'), 201);
    const before = await state();
    await svc.close({ keepData: true });
    const save = await cli('save', 'parado');
    assert.equal(save.status, 0, save.stderr);
    svc = await startTestService({}, { reuse: svc.data });
    api = webhookApi(svc.demo);
    await ok('POST', '/v2/cob', cobBody(svc.demo.chaves[0], '18.88'), 201);
    await svc.close({ keepData: true });
    const restore = await cli('restore', 'parado');
    assert.equal(restore.status, 0, restore.stderr);
    svc = await startTestService({}, { reuse: svc.data });
    api = webhookApi(svc.demo);
    assert.deepEqual(await state(), before);
    assert.equal((await ok('GET', `/v2/cob/${kept.txid}`)).txid, kept.txid);
    await assertLedgerBalanced(svc.service.ctx.db);
  });
});
