/**
 * POST /sandbox/reset (issue 33, item 4): an account back as it was created — charges, Pix, sends, refunds,
 * keys, settings, webhooks, clock and balance — with the same credentials, while another account that paid it
 * and was paid by it keeps every row and cent of its own. Every table of the schema is either emptied of the
 * account or kept for a stated reason. Real HTTPS; the ledger's invariants at the end.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, cobBody, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { outboxIdle } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { KEPT_TABLES, RESET_TABLES } from '../../src/sandbox/reset-store.ts';

let sequence = 0;
const newId = (tag: string) => `${tag}${Date.now().toString(36)}${sequence++}`;

describe('POST /sandbox/reset', () => {
  let svc: TestService;
  let receiver: Receiver;
  let a: Party;
  let b: Party;
  let aApi: WebhookApi;
  let bApi: WebhookApi;

  const ok = async (api: WebhookApi, method: string, path: string, body?: unknown, status = 200) => {
    const res = await api.call(method, path, body);
    assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
    return res.body;
  };
  const saldo = async (api: WebhookApi) => (await ok(api, 'GET', '/v2/gn/saldo/')).saldo as string;
  const period = 'inicio=2000-01-01T00:00:00Z&fim=2100-01-01T00:00:00Z';

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    a = await svc.newParty({ nome: 'Conta Reiniciada Ltda' });
    b = await svc.newParty({ nome: 'Conta Vizinha Ltda' });
    aApi = webhookApi(a);
    bApi = webhookApi(b);
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it('names every table of the schema as emptied of the account or kept for a reason', async () => {
    const { rows } = await svc.service.ctx.db.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    const tables = rows.map((r) => r.table_name).sort();
    const classified = [...RESET_TABLES, ...Object.keys(KEPT_TABLES)];
    assert.deepEqual(
      tables.filter((t) => !classified.includes(t)),
      [],
      'tables a reset neither empties nor keeps: decide in src/sandbox/reset-store.ts',
    );
    assert.deepEqual(
      RESET_TABLES.filter((t) => t in KEPT_TABLES),
      [],
      'a table both emptied and kept',
    );
  });

  it("takes one account back to its creation, leaving the other account's rows and money alone", async () => {
    await aApi.registerPix(`${receiver.url}/a`);
    await bApi.registerPix(`${receiver.url}/b`);
    // A receives, refunds part, sends to B, is paid by B, keeps a due charge, a new key, settings and a moved clock.
    const cob = await ok(aApi, 'POST', '/v2/cob', cobBody(a.chaves[0], '80.00'), 201);
    const paid = await ok(aApi, 'POST', '/sandbox/pix/pay', { txid: cob.txid }, 201);
    await ok(aApi, 'PUT', `/v2/pix/${paid.endToEndId}/devolucao/${newId('d')}`, { valor: '5.00' }, 201);
    const idEnvio = newId('envio');
    await ok(
      aApi,
      'PUT',
      `/v2/gn/pix/${idEnvio}`,
      {
        valor: '20.00',
        pagador: { chave: a.chaves[0] },
        favorecido: { chave: b.chaves[0] },
      },
      201,
    );
    await ok(bApi, 'POST', '/sandbox/pix/pay', { chave: b.chaves[0], valor: '30.00' }, 201);
    await ok(
      bApi,
      'PUT',
      `/v2/gn/pix/${newId('volta')}`,
      {
        valor: '7.00',
        pagador: { chave: b.chaves[0] },
        favorecido: { chave: a.chaves[0] },
      },
      201,
    );
    const evp = (await ok(aApi, 'POST', '/v2/gn/evp', undefined, 201)).chave as string;
    await ok(aApi, 'PUT', '/v2/gn/config', { pix: { receberSemChave: false } }, 201);
    await ok(aApi, 'POST', '/sandbox/clock/advance', { segundos: 86_400 });
    await outboxIdle(svc);
    assert.equal((await ok(aApi, 'GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).status, 'REALIZADO', 'A → B');
    const bBefore = {
      saldo: await saldo(bApi),
      pix: ((await ok(bApi, 'GET', `/v2/pix?${period}`)).pix as unknown[]).length,
    };
    assert.notEqual(await saldo(aApi), '0.00');

    const reset = await ok(aApi, 'POST', '/sandbox/reset', {});
    assert.equal(
      reset.conta,
      (await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [a.accountId]))
        .rows[0].conta,
    );
    assert.equal(reset.relogio.deslocamentoSegundos, 0);
    assert.ok(reset.removidos.charges >= 1 && reset.removidos.received_pix >= 2, JSON.stringify(reset.removidos));

    assert.equal(await saldo(aApi), '0.00');
    await assertBalanceMatchesLines(svc.service.ctx.db, a.accountId, '0.00');
    assert.deepEqual((await ok(aApi, 'GET', `/v2/cob?${period}`)).cobs, []);
    assert.deepEqual((await ok(aApi, 'GET', `/v2/pix?${period}`)).pix, []);
    assert.equal((await aApi.call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).status, 404);
    assert.equal((await aApi.call('GET', `/v2/webhook/${encodeURIComponent(a.chaves[0])}`)).status, 404);
    const keys = (await ok(aApi, 'GET', '/v2/gn/evp')).chaves as string[];
    assert.deepEqual(keys, a.chaves, `the first key only (the one made later, ${evp}, is gone)`);
    assert.equal((await ok(aApi, 'GET', '/sandbox/clock')).deslocamentoSegundos, 0);
    assert.equal((await ok(aApi, 'GET', '/v2/gn/config')).pix.receberSemChave, true, 'the default again');

    // B's side of every exchange is B's: untouched.
    assert.equal(await saldo(bApi), bBefore.saldo);
    assert.equal(((await ok(bApi, 'GET', `/v2/pix?${period}`)).pix as unknown[]).length, bBefore.pix);

    // The same credentials work on as before, and the account receives again.
    const again = await ok(aApi, 'POST', '/v2/cob', cobBody(a.chaves[0], '12.00'), 201);
    await ok(aApi, 'POST', '/sandbox/pix/pay', { txid: again.txid }, 201);
    assert.equal(await saldo(aApi), '12.00');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('is refused without the sandbox scope', async () => {
    const limited = await svc.newParty({ scopes: ['cob.read'] });
    const res = await webhookApi(limited).call('POST', '/sandbox/reset', {});
    assert.equal(res.status, 403, res.text);
  });
});
