/**
 * `pixd pay`, `pixd clock` and `pixd trigger` as child processes against a running sandbox: each goes through
 * the API with the account's own credentials, and the webhooks they cause reach real mTLS receivers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runPixd } from '../helpers/cli.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { cobBody, startTestService, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { billingApi, customer } from '../billing/helpers.ts';
import { brasiliaDate, fromEpochDay, nextBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';

describe('pixd pay, clock and trigger', () => {
  let svc: TestService;
  let receiver: Receiver;
  let api: WebhookApi;
  const pixd = (...args: string[]) =>
    runPixd([...args, '--data-dir', svc.data.dataDir], { DATABASE_URL: svc.data.databaseUrl, LOG_LEVEL: 'silent' });
  const ok = async (...args: string[]) => {
    const run = await pixd(...args);
    assert.equal(run.status, 0, `pixd ${args.join(' ')}: ${run.stderr}`);
    return run.stdout;
  };

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    api = webhookApi(svc.demo);
    await api.registerPix(`${receiver.url}/cli`);
  });
  after(async () => {
    await receiver.close();
    await svc.close();
  });

  it('pays a charge by txid and by its BR Code, as the fictitious payer', async () => {
    for (const by of ['txid', 'pixCopiaECola'] as const) {
      // Above the sandbox's automatic payment bound, so only the command pays it.
      const cob = await api.call('POST', '/v2/cob', cobBody(svc.demo.chaves[0], '42.10'));
      assert.equal(cob.status, 201, cob.text);
      const out = await ok('pay', cob.body[by]);
      assert.match(out, /^paid 42\.10 .*endToEndId E\w+/);
      const read = await api.call('GET', `/v2/cob/${cob.body.txid}`);
      assert.equal(read.body.status, 'CONCLUIDA', by);
      assert.equal(read.body.pix[0].endToEndId, /endToEndId (\w+)/.exec(out)?.[1]);
    }
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('pays a boleto by its linha digitável, credited on the next business day', async () => {
    const billing = billingApi(svc.anonymous, svc.demo);
    const expireAt = fromEpochDay(nextBusinessDay(toEpochDay(brasiliaDate(new Date())) + 3));
    const issued = await billing.ok('POST', '/v1/charge/one-step', {
      items: [{ name: 'Livro', value: 4210, amount: 1 }],
      payment: { banking_billet: { customer, expire_at: expireAt } },
    });
    const out = await ok('pay', issued.data.barcode);
    assert.match(out, /^paid boleto \d{47} of .*: 42\.10, credited at \d{4}-/);
    const again = await pixd('pay', issued.data.barcode);
    assert.match(again.stderr, /^pixd: POST \/sandbox\/boleto\/pay answered 400: .*boleto_pago/);
  });

  it('triggers a received Pix and its refund on the key webhook, and recurrence events', async () => {
    receiver.calls.length = 0;
    const received = await ok('trigger', 'pix', '--valor', '3.21');
    const e2eid = /endToEndId (\w+)/.exec(received)?.[1];
    assert.doesNotMatch(received, /no webhook/, 'the key has a webhook: nothing to warn of');
    const [call] = await receiver.waitForCalls(1, '/cli/pix');
    assert.equal(call.body.pix[0].endToEndId, e2eid);
    assert.equal(call.body.pix[0].valor, '3.21');

    assert.match(await ok('trigger', 'devolucao'), /^refund \w+ of 12\.34 for E\w+: EM_PROCESSAMENTO/);

    assert.equal((await api.call('PUT', '/v2/webhookrec', { webhookUrl: `${receiver.url}/auto` })).status, 200);
    const triggered = await ok('trigger', 'rec');
    assert.match(triggered, /^recurrence R\w{28} CRIADA: its \/rec event is queued/);
    const [rec] = await receiver.waitForCalls(1, '/auto/rec');
    assert.equal(rec.body.recs[0].idRec, /recurrence (\w+)/.exec(triggered)?.[1]);
    assert.equal(rec.body.recs[0].status, 'CRIADA');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('triggers a card charge notification to the URL named', async () => {
    const out = await ok('trigger', 'cobranca', '--notification-url', `${receiver.url}/billing`);
    assert.match(out, /^billing charge \d+ \(new\)/);
    const [notified] = await receiver.waitForCalls(1, '/billing');
    assert.ok(notified.body.notification, 'the notification token');
    const refused = await pixd('trigger', 'cobranca');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /needs --notification-url/);
  });

  it('on a fresh account, trigger cobr creates the recurring charge it needs, and each trigger says when no webhook was sent', async () => {
    const created = JSON.parse(await ok('account', 'create', '--json'));
    const own = (...args: string[]) =>
      ok(...args, '--credentials', `${svc.data.dataDir}/credentials-${created.account.conta}.json`);
    const cobr = await own('trigger', 'cobr');
    assert.match(
      cobr,
      /^recurring charge \w+ CRIADA on recurrence R\w+: its \/cobr event is queued; no webhook is registered for recurring charges/,
    );
    // Now there is one: the next trigger replays its event.
    assert.match(await own('trigger', 'cobr'), /^webhook\.cobr queued as delivery \d+; no webhook is registered/);
    assert.match(
      await own('trigger', 'pix', '--valor', '1.50'),
      /^received 1\.50 on \S+: .*; no webhook is registered for /,
    );
    assert.match(await own('trigger', 'abertura-conta'), /no \/v1\/webhook is registered, so none was sent/);
    // A notification URL pixd cannot POST to is refused before any charge exists.
    const http = await pixd('trigger', 'cobranca', '--notification-url', 'http://localhost:3000/billing');
    assert.equal(http.status, 1);
    assert.match(http.stderr, /notification_url: .*HTTPS/);
  });

  it('moves the clock by a human duration and back', async () => {
    assert.match(await ok('clock', 'advance', '1d2h'), /\(93600 s ahead of real time\)/);
    assert.match(await ok('clock'), /\(93600 s ahead/);
    assert.match(await ok('clock', 'reset'), /\(0 s ahead/);
    const bad = await pixd('clock', 'advance', '3x');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /^pixd: "3x" is not a duration/);
  });

  it('says so in one line when the API refuses or the server is not there', async () => {
    const unknown = await pixd('pay', 'A'.repeat(30));
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^pixd: POST \/sandbox\/pix\/pay answered 400: .*cobranca_inexistente/);
    const invalid = await pixd('trigger', 'pix', '--valor', 'abc');
    assert.equal(invalid.status, 1);
    assert.match(invalid.stderr, /answered 400: Cobrança inválida\. \S/);
    assert.doesNotMatch(invalid.stderr, /\.:/, 'a title that ends a sentence is not followed by a colon');
    const absent = await runPixd(['trigger', 'pix', '--credentials', '/nonexistent/credentials.json']);
    assert.equal(absent.status, 1);
    assert.match(absent.stderr, /^pixd: no credentials file at \/nonexistent/);
  });
});
