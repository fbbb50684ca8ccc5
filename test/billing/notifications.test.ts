/**
 * Billing notifications with a real local HTTPS receiver: only `notification=<token>` is POSTed, the token is
 * the charge's for life, re-sent on the schedule until queried (even after a 200), failures in the history,
 * a changed URL takes over, the 3-day window closes it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Receiver } from '../helpers/receiver.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { resetWebhookSettings, setWebhookSettings, webhookSettings } from '../../src/platform/webhooks/settings.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { deliveryHealth } from '../../src/console/store.ts';
import { billingApi, CARDS, cardPayment, items, paymentToken, type BillingApi } from './helpers.ts';

let svc: TestService;
let api: BillingApi;
let receiver: Receiver;

before(async () => {
  svc = await startTestService();
  api = billingApi(svc.anonymous, svc.demo);
  receiver = await Receiver.start({ clientCaPem: svc.caPem });
});
after(async () => {
  await receiver.close();
  await svc.close();
  resetWebhookSettings();
});

const notifications = async (token: string) => (await api.ok('GET', `/v1/notification/${token}`)).data as any[];
const history = async (id: number) => (await api.ok('GET', `/v1/charge/${id}`)).data.history as { message: string }[];
const DAY = 86400;

describe('billing notifications', () => {
  it('every status change POSTs the same token; querying it returns the ordered history and stops re-sending', async () => {
    receiver.calls.length = 0;
    const url = `${receiver.url}/billing?x=1`;
    const created = await api.ok('POST', '/v1/charge', {
      items,
      metadata: { notification_url: url, custom_id: 'pedido-9' },
    });
    const id = created.data.charge_id;
    const [first] = await receiver.waitForCalls(1, '/billing');
    assert.deepEqual(first.body, { notification: first.body.notification });
    assert.match(
      String(first.headers['content-type']),
      /^application\/x-www-form-urlencoded/,
      'notification=<token>, form-encoded as Efí sends it',
    );
    assert.equal(first.clientCertificate, true, 'the service presents its client certificate');
    const token = first.body.notification as string;
    assert.match(token, /^[0-9a-f]{36}$/);
    // Not queried: sent again on the schedule (5 minutes later), although the receiver answered 200.
    svc.advance(5 * 60);
    await receiver.waitForCalls(2, '/billing');
    let events = await notifications(token);
    assert.deepEqual(
      events.map((e) => [e.id, e.status.previous, e.status.current]),
      [[1, null, 'new']],
    );
    assert.equal(events[0].custom_id, 'pedido-9');
    assert.deepEqual(events[0].identifiers, { charge_id: id });
    // Queried: no more sends.
    svc.advance(60 * 60);
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/billing').length, 2);

    await api.ok(
      'POST',
      `/v1/charge/${id}/pay`,
      cardPayment(await paymentToken(svc.anonymous, svc.demo.payeeCode, CARDS.approved)),
    );
    await waitFor(async () => (await api.ok('GET', `/v1/charge/${id}`)).data.status === 'approved', 'approved');
    await api.ok('POST', `/sandbox/billing/charge/${id}/settle`);
    await waitFor(
      async () =>
        receiver.callsTo('/billing').every((c) => c.body.notification === token) &&
        receiver.callsTo('/billing').length >= 3 &&
        (await notifications(token)).length === 4,
      'four events',
    );
    events = await notifications(token);
    assert.deepEqual(
      events.map((e) => [e.id, e.status.previous, e.status.current]),
      [
        [1, null, 'new'],
        [2, 'new', 'waiting'],
        [3, 'waiting', 'approved'],
        [4, 'approved', 'paid'],
      ],
    );
    assert.equal(events[3].value, 11980);
    assert.match(events[3].received_by_bank_at, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(events[2].value, undefined);
  });

  it('PUT …/metadata resend: true notifies the newest event again, even once queried; false keeps a new URL quiet', async () => {
    const created = await api.ok('POST', '/v1/charge', { items, metadata: { notification_url: `${receiver.url}/rs` } });
    const id = created.data.charge_id;
    const [first] = await receiver.waitForCalls(1, '/rs');
    const token = first.body.notification as string;
    await notifications(token);
    svc.advance(60 * 60);
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/rs').length, 1, 'queried: nothing more to send');

    await api.ok('PUT', `/v1/charge/${id}/metadata`, { custom_id: 'reenvio', resend: true });
    const calls = await receiver.waitForCalls(2, '/rs');
    assert.equal(calls[1].body.notification, token, 'the same token, sent again');
    // Answered, and the token was queried: the resend is done (no schedule after it).
    svc.advance(60 * 60);
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/rs').length, 2);

    // A new URL gets the newest unqueried event delivered again; with `resend: false` nothing is sent to it.
    await api.ok('PUT', `/v1/charge/${id}/metadata`, { notification_url: `${receiver.url}/rs-new`, resend: false });
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/rs-new').length, 0);
    const refused = await api.call('PUT', `/v1/charge/${id}/metadata`, { resend: 'sim' });
    assert.equal(refused.status, 400, refused.text);
  });

  it('failures (404, 500, down) are recorded in the history and retried; a new URL takes over; the window closes after 3 days', async () => {
    receiver.behaviour = { status: 404 };
    receiver.calls.length = 0;
    const created = await api.ok('POST', '/v1/charge', {
      items,
      metadata: { notification_url: `${receiver.url}/old` },
    });
    const id = created.data.charge_id;
    await receiver.waitForCalls(1, '/old');
    await waitFor(
      async () =>
        (await api.ok('GET', `/v1/charge/${id}`)).data.history.some((h: any) => /Falha.*HTTP 404/.test(h.message)),
      '404 in history',
    );
    receiver.behaviour = { status: 500 };
    svc.advance(5 * 60);
    await receiver.waitForCalls(2, '/old');
    await waitFor(
      async () => (await api.ok('GET', `/v1/charge/${id}`)).data.history.some((h: any) => /HTTP 500/.test(h.message)),
      '500 in history',
    );
    receiver.behaviour = { status: 200 };
    await api.ok('PUT', `/v1/charge/${id}/metadata`, { notification_url: `${receiver.url}/new` });
    const [moved] = await receiver.waitForCalls(1, '/new');
    assert.equal(typeof moved.body.notification, 'string');
    // Never queried: re-sent to the new URL until 3 days after the first attempt, then given up.
    for (let i = 0; i < 12; i++) {
      svc.advance(12 * 3600);
      await outboxIdle(svc);
    }
    const sent = receiver.callsTo('/new').length;
    assert.ok(sent >= 3, `re-sent (${sent})`);
    svc.advance(86400);
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/new').length, sent, 'nothing after the 3-day window');
  });

  it('redirects (301, 302) are not followed but recorded as failures; a timeout is recorded too', async () => {
    receiver.calls.length = 0;
    receiver.behaviour = { redirect: `${receiver.url}/elsewhere`, status: 302 };
    const created = await api.ok('POST', '/v1/charge', {
      items,
      metadata: { notification_url: `${receiver.url}/moved` },
    });
    const id = created.data.charge_id;
    await receiver.waitForCalls(1, '/moved');
    await waitFor(
      async () =>
        (await history(id)).some(
          (h) => h.message === `Falha ao enviar a notificação para ${receiver.url}/moved: http_status: HTTP 302`,
        ),
      '302 in history',
    );
    receiver.behaviour = { redirect: `${receiver.url}/elsewhere`, status: 301 };
    svc.advance(5 * 60);
    await receiver.waitForCalls(2, '/moved');
    await waitFor(
      async () =>
        (await history(id)).some((h) =>
          /Falha ao enviar a notificação para .*\/moved: http_status: HTTP 301$/.test(h.message),
        ),
      '301 in history',
    );
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/elsewhere').length, 0, 'the Location is never followed');

    // Timeout: the receiver holds the request; a short delivery timeout (injected for tests) gives up on it.
    const previousTimeout = webhookSettings().deliveryTimeoutMs;
    setWebhookSettings({ deliveryTimeoutMs: 400 });
    try {
      receiver.behaviour = 'hang';
      const slow = await api.ok('POST', '/v1/charge', {
        items,
        metadata: { notification_url: `${receiver.url}/slow` },
      });
      await receiver.waitForCalls(1, '/slow');
      await waitFor(
        async () =>
          (await history(slow.data.charge_id)).some(
            (h) =>
              h.message === `Falha ao enviar a notificação para ${receiver.url}/slow: timeout: sem resposta em 400 ms.`,
          ),
        'timeout in history',
      );
      const attempts = await svc.service.ctx.db.query<{ error: string | null }>(
        'select error from webhook_attempts where url = $1',
        [`${receiver.url}/slow`],
      );
      assert.ok(
        attempts.rows.some((a) => a.error?.startsWith('timeout:')),
        'and in the attempt records',
      );
    } finally {
      receiver.behaviour = { status: 200 };
      setWebhookSettings({ deliveryTimeoutMs: previousTimeout });
    }
  });

  it('a URL pixd cannot POST to is refused when given; one stored before that rule fails in the history, on the schedule, counted', async () => {
    const party = await svc.newParty();
    const own = billingApi(svc.anonymous, party);
    const refusedWith = async (method: string, path: string, body: unknown) => {
      const res = await own.call(method, path, body);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'validation_error');
      return String(res.body.error_description);
    };
    for (const url of ['http://127.0.0.1:3000/hook', 'ftp://example.com/x', 'https://u:p@example.com/x'])
      assert.match(
        await refusedWith('POST', '/v1/charge', { items, metadata: { notification_url: url } }),
        /notification_url/,
      );
    assert.match(
      await refusedWith('POST', '/v1/charge', { items, metadata: { notification_url: 'http://localhost/x' } }),
      /HTTPS/,
    );
    const id = (await own.ok('POST', '/v1/charge', { items })).data.charge_id;
    assert.match(
      await refusedWith('PUT', `/v1/charge/${id}/metadata`, { notification_url: 'http://localhost:3000/x' }),
      /notification_url: .*HTTPS/,
    );
    assert.match(
      await refusedWith('POST', '/v1/charge/one-step', {
        items,
        metadata: { notification_url: 'http://localhost:3000/x' },
        ...cardPayment('x'),
      }),
      /notification_url: .*HTTPS/,
    );

    // A charge stored with an http:// URL before the rule: each attempt is a failure in the history and in
    // the attempt records, on the documented schedule, never an exception retried every few seconds.
    await svc.service.ctx.db.query('update billing_charges set notification_url = $2 where id = $1', [
      id,
      'http://127.0.0.1:9/old',
    ]);
    await own.ok('PUT', `/v1/charge/${id}/cancel`);
    const failures = async () =>
      (await own.ok('GET', `/v1/charge/${id}`)).data.history.filter((h: { message: string }) =>
        /Falha ao enviar/.test(h.message),
      );
    await waitFor(async () => (await failures()).length === 1, 'first failure in the history');
    assert.match((await failures())[0].message, /http:\/\/127\.0\.0\.1:9\/old: invalid_url: .*HTTPS/);
    await outboxIdle(svc);
    const job = await svc.service.ctx.db.query<{ last_error: string }>(
      `select last_error from outbox where topic = 'billing.notification' and payload->>'chargeId' = $1`,
      [String(id)],
    );
    assert.match(
      job.rows.at(-1)!.last_error,
      /^tentativa 1 falhou/,
      'retried on the schedule, not as an unexpected error',
    );
    svc.advance(4 * 60);
    await outboxIdle(svc);
    assert.equal((await failures()).length, 1, 'not before 5 minutes');
    svc.advance(60);
    await waitFor(async () => (await failures()).length === 2, 'second failure 5 minutes later');
    const health = await deliveryHealth(svc.service.ctx.db, party.accountId, new Date(0), 5);
    assert.equal(health.ok, 0);
    assert.equal(health.total, 2, 'the console overview counts the failed attempts');
    assert.match(String(health.errors[0].error), /invalid_url/);
  });

  it('a new URL takes over only if the first attempt was at most 3 days earlier', async () => {
    receiver.behaviour = { status: 200 };
    receiver.calls.length = 0;
    const inside = (
      await api.ok('POST', '/v1/charge', { items, metadata: { notification_url: `${receiver.url}/in-old` } })
    ).data.charge_id;
    const outside = (
      await api.ok('POST', '/v1/charge', { items, metadata: { notification_url: `${receiver.url}/out-old` } })
    ).data.charge_id;
    await receiver.waitForCalls(1, '/in-old');
    await receiver.waitForCalls(1, '/out-old');
    // Just inside the window: the pending re-sends fire once more (200, never queried) and then stop, the window being over before the next step.
    svc.advance(3 * DAY - 60);
    await receiver.waitForCalls(2, '/in-old');
    await receiver.waitForCalls(2, '/out-old');
    await outboxIdle(svc);
    await api.ok('PUT', `/v1/charge/${inside}/metadata`, { notification_url: `${receiver.url}/in-new` });
    const [moved] = await receiver.waitForCalls(1, '/in-new');
    assert.equal(moved.body.notification, receiver.callsTo('/in-old')[0].body.notification, 'same token, new URL');
    // Just past it: the URL is changed but nothing is sent.
    svc.advance(120);
    await api.ok('PUT', `/v1/charge/${outside}/metadata`, { notification_url: `${receiver.url}/out-new` });
    await outboxIdle(svc);
    svc.advance(DAY);
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/out-new').length, 0, 'no delivery more than 3 days after the first attempt');
    assert.equal((await api.ok('GET', `/v1/charge/${outside}`)).data.notification_url, `${receiver.url}/out-new`);
  });

  it('URL updates are limited to 7,500 per 24 h per account (429 metadata_update_limit), counted on the service clock', async () => {
    const party = await svc.newParty();
    const own = billingApi(svc.anonymous, party);
    const id = (await own.ok('POST', '/v1/charge', { items })).data.charge_id;
    // custom_id alone is no URL change and is not counted.
    await own.ok('PUT', `/v1/charge/${id}/metadata`, { custom_id: 'x' });
    const counted = async () =>
      (
        await svc.service.ctx.db.query<{ n: number }>(
          'select count(*)::int as n from billing_metadata_updates where account_id = $1',
          [party.accountId],
        )
      ).rows[0].n;
    assert.equal(await counted(), 0);
    const limit = LIMITS.billingMetadataUpdatesPerWindow;
    assert.equal(limit, 7500);
    // The first URL delivers the token once; querying it marks the only event delivered, so none of the
    // following URL changes starts a delivery.
    await own.ok('PUT', `/v1/charge/${id}/metadata`, { notification_url: `${receiver.url}/limit/0` });
    const [first] = await receiver.waitForCalls(1, '/limit/');
    await own.ok('GET', `/v1/notification/${first.body.notification}`);
    for (let i = 1; i < 10; i++)
      await own.ok('PUT', `/v1/charge/${id}/metadata`, { notification_url: `${receiver.url}/limit/${i}` });
    assert.equal(await counted(), 10, 'each URL change counted');
    // 7,500 HTTPS updates take about a minute on this machine: the rest of the day's updates are seeded in the
    // table the route counts, one row per update stamped with the service clock, exactly as the route writes them.
    await svc.service.ctx.db.query(
      'insert into billing_metadata_updates (account_id, created_at) select $1, $2 from generate_series(1, $3)',
      [party.accountId, svc.clock.now(), limit - 10],
    );
    assert.equal(await counted(), limit);
    // Setting the URL it already has is no change, hence not refused.
    await own.ok('PUT', `/v1/charge/${id}/metadata`, { notification_url: `${receiver.url}/limit/9` });
    const refused = await own.call('PUT', `/v1/charge/${id}/metadata`, {
      notification_url: `${receiver.url}/limit/refused`,
    });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.code, 429);
    assert.equal(refused.body.error, 'metadata_update_limit');
    assert.equal((await own.ok('GET', `/v1/charge/${id}`)).data.notification_url, `${receiver.url}/limit/9`);
    const stillRefused = await own.call('PUT', `/v1/charge/${id}/metadata`, {
      notification_url: `${receiver.url}/limit/refused`,
    });
    assert.equal(stillRefused.status, 429, 'a refused change is not counted, and does not free a place either');
    assert.equal(await counted(), limit);
    // Other accounts are not affected.
    const other = (await api.ok('POST', '/v1/charge', { items })).data.charge_id;
    await api.ok('PUT', `/v1/charge/${other}/metadata`, { notification_url: `${receiver.url}/other` });
    // 24 h later on the service clock the window has moved past every counted update.
    svc.advance(DAY - 60);
    assert.equal(
      (await own.call('PUT', `/v1/charge/${id}/metadata`, { notification_url: `${receiver.url}/limit/refused` }))
        .status,
      429,
      'still refused just before 24 h',
    );
    svc.advance(61);
    await own.ok('PUT', `/v1/charge/${id}/metadata`, { notification_url: `${receiver.url}/limit/again` });
    assert.equal(receiver.callsTo('/limit/').length, 1, 'no delivery for a charge whose events were queried');
  });
});
