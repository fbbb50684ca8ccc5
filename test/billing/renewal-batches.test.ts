/**
 * A day's renewals in batches (src/billing/subscriptions/renewal.ts, docs/billing.md "Renewals"): the
 * subscriptions of an account due on one day are renewed a batch per transaction, card renewals set-based, each
 * exactly once whatever happens to the job — a transaction that dies mid-batch (rolled back after its writes), a
 * job that dies after some batches committed and is run again, two jobs of the same day at once, and the day's
 * own job at midnight afterwards. A refused card follows the card rules (unpaid, not retryable), a plan's last
 * parcel expires the subscription, each renewal's events are those of the one-by-one path, and once the
 * confirmations ran each approved renewal is paid by exactly one journal entry and the ledger verifies.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { outboxIdle } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { billingApi, CARDS, customer, paymentToken } from './helpers.ts';
import { hashToken } from '../../src/billing/tokens/service.ts';
import { renewBatch, renewDueSubscriptions } from '../../src/billing/subscriptions/renewal.ts';

const HOUR_S = 3_600;
let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc.close();
});

describe('renewals of a day in batches', () => {
  it('each due subscription is renewed exactly once through crashes, retries and concurrent jobs', async () => {
    const party = await svc.newParty();
    const api = billingApi(svc.anonymous, party);
    const db = svc.service.ctx.db;
    const monthly = (await api.ok('POST', '/v1/plan', { name: 'Mensal', interval: 1 })).data.plan_id;
    const twice = (await api.ok('POST', '/v1/plan', { name: 'Duas vezes', interval: 1, repeats: 2 })).data.plan_id;
    const payment_token = await paymentToken(svc.anonymous, party.payeeCode, CARDS.approved, { reuse: true });
    const subscribe = async (plan: number, i: number) =>
      (
        await api.ok('POST', `/v1/plan/${plan}/subscription/one-step`, {
          items: [{ name: `Assinatura ${i}`, value: 1990 + i }],
          metadata: { custom_id: `lote-${i}` },
          payment: { credit_card: { customer, payment_token } },
        })
      ).data.subscription_id as number;
    const n = 13;
    const ids: number[] = [];
    for (let i = 0; i < n - 1; i++) ids.push(await subscribe(monthly, i));
    const last = await subscribe(twice, n - 1);
    ids.push(last);
    // One subscription's stored card is refused by the issuer from now on (last digit 2).
    const refusing = await paymentToken(svc.anonymous, party.payeeCode, CARDS.security, { reuse: true });
    await db.query(
      `update billing_subscriptions set payment = jsonb_set(payment, '{token_ref}', to_jsonb($2::text)) where id = $1`,
      [ids[0], hashToken(refusing)],
    );

    const { rows: dates } = await db.query<{ next: string }>(
      `select distinct to_char(next_execution, 'YYYY-MM-DD') as next from billing_subscriptions where account_id = $1`,
      [party.accountId],
    );
    assert.equal(dates.length, 1, 'every subscription renews on the same day');
    const day = { accountId: party.accountId, date: dates[0].next };
    const midnightMs = Date.parse(`${day.date}T03:00:00Z`); // 00:00 in Brasília
    const advance = async (seconds: number) => {
      const res = await party.http.request('POST', '/sandbox/clock/advance', {
        token: await party.token(),
        body: { segundos: seconds },
      });
      assert.equal(res.status, 200, res.text);
    };
    // A minute before that midnight: the first charges' confirmations run, the day's job is not yet due.
    await advance(Math.floor((midnightMs - svc.clock.forAccount(party.accountId).nowMs()) / 1000) - 60);
    await outboxIdle(svc);

    const parcels = async () =>
      (
        await db.query<{ parcel: number; n: number; subs: number }>(
          `select s.parcel, count(*)::int as n, count(distinct s.subscription_id)::int as subs
             from billing_subscription_charges s join billing_subscriptions b on b.id = s.subscription_id
            where b.account_id = $1 group by s.parcel order by s.parcel`,
          [party.accountId],
        )
      ).rows.map((p) => [p.parcel, p.n, p.subs]);
    const deps = svc.service.ctx;
    const claimed: number[][] = [];

    // A transaction that dies after writing a batch: nothing of it stays.
    await assert.rejects(
      db.tx(async (sql) => {
        await renewBatch(sql, deps, day, 5, [], (batch) => claimed.push(batch));
        throw new Error('the node died mid-batch');
      }),
      /died mid-batch/,
    );
    assert.equal(claimed[0].length, 5);
    assert.deepEqual(await parcels(), [[1, n, n]]);

    // A job that died after its first batch committed, then run again twice at once (a retry and a duplicate).
    assert.equal(await db.tx((sql) => renewBatch(sql, deps, day, 5, [], () => undefined)), 5);
    const [a, b] = await Promise.all([renewDueSubscriptions(deps, day, 3), renewDueSubscriptions(deps, day, 3)]);
    assert.equal(a.renewed + b.renewed, n - 5);
    // One may have counted the other's last batch as still due (uncommitted then): its job would look again.
    assert.deepEqual(await parcels(), [
      [1, n, n],
      [2, n, n],
    ]);
    assert.deepEqual(await renewDueSubscriptions(deps, day), { renewed: 0, left: 0, sliceEnded: false });

    // The day's own job at midnight finds nothing left.
    await advance(120);
    await outboxIdle(svc);
    const { rows: dayJobs } = await db.query<{ done: boolean }>(
      `select done_at is not null as done from outbox where topic = 'billing.subscription.renewals' and account_id = $1
          and payload->>'date' = $2`,
      [party.accountId, day.date],
    );
    assert.ok(dayJobs.length >= 1 && dayJobs.every((j) => j.done), 'the day job ran');
    assert.deepEqual(await parcels(), [
      [1, n, n],
      [2, n, n],
    ]);

    // What each renewal looks like: the events of the one-by-one path, the subscription moved on.
    const detail = async (id: number) => (await api.ok('GET', `/v1/subscription/${id}`)).data;
    const renewed = await detail(ids[1]);
    assert.equal(renewed.status, 'new_charge');
    assert.equal(renewed.occurrences, 2);
    const renewalCharge = renewed.history.find((h: any) => h.parcel === 2);
    const charge = (await api.ok('GET', `/v1/charge/${renewalCharge.charge_id}`)).data;
    assert.equal(charge.status, 'approved');
    assert.equal(charge.total, 1991);
    assert.equal(charge.custom_id, 'lote-1');
    assert.deepEqual(
      charge.history.map((h: any) => h.message),
      [
        'Cobrança criada.',
        'Pagamento via cartão de crédito aguardando a resposta da operadora.',
        'Pagamento via cartão de crédito aprovado pela operadora; aguardando confirmação.',
      ],
    );
    assert.ok(
      renewed.history.some((h: any) => h.message?.includes(`Cobrança 2 criada (cobrança ${charge.charge_id})`)),
    );
    const expired = await detail(last);
    assert.equal(expired.status, 'expired');
    assert.equal(expired.next_execution, null);
    const refused = await detail(ids[0]);
    const unpaid = (await api.ok('GET', `/v1/charge/${refused.history.find((h: any) => h.parcel === 2).charge_id}`))
      .data;
    assert.equal(unpaid.status, 'unpaid');
    assert.equal(unpaid.reason, 'Transaction not authorized for security reasons.');
    const { rows: renewalDays } = await db.query<{ renews_on: string | null; n: number }>(
      `select to_char(renews_on, 'YYYY-MM-DD') as renews_on, count(*)::int as n from billing_subscriptions
        where account_id = $1 group by 1 order by 1`,
      [party.accountId],
    );
    assert.equal(renewalDays.length, 2, 'the next parcel scheduled, or none after the plan ends');
    assert.equal(renewalDays[1].renews_on, null);

    // The confirmations, an hour after the approvals: each approved renewal paid by one entry; the ledger verifies.
    await advance(HOUR_S + 60);
    await outboxIdle(svc);
    const { rows: paid } = await db.query<{ status: string; entries: number }>(
      `select c.status, (select count(*)::int from journal_entries e where e.kind = 'billing_card_payment'
           and e.reference = 'billing_charge:' || c.id) as entries
         from billing_subscription_charges s join billing_charges c on c.id = s.charge_id
        where c.account_id = $1 and s.parcel = 2`,
      [party.accountId],
    );
    assert.deepEqual(
      paid.map((p) => [p.status, p.entries]).sort(),
      [...Array.from({ length: n - 1 }, () => ['paid', 1]), ['unpaid', 0]].sort(),
    );
    await assertLedgerBalanced(db);
  });

  it('a subscription that cannot be renewed holds back only itself', async () => {
    const party = await svc.newParty();
    const api = billingApi(svc.anonymous, party);
    const db = svc.service.ctx.db;
    const plan = (await api.ok('POST', '/v1/plan', { name: 'Mensal', interval: 1 })).data.plan_id;
    const payment_token = await paymentToken(svc.anonymous, party.payeeCode, CARDS.approved, { reuse: true });
    const ids: number[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(
        (
          await api.ok('POST', `/v1/plan/${plan}/subscription/one-step`, {
            items: [{ name: `Assinatura ${i}`, value: 990 }],
            payment: { credit_card: { customer, payment_token } },
          })
        ).data.subscription_id,
      );
    // Its stored card's vault entry is gone: the batch fails, then it alone.
    const { rows } = await db.query<{ ref: string; next: string }>(
      `select payment->>'token_ref' as ref, to_char(next_execution, 'YYYY-MM-DD') as next from billing_subscriptions
        where id = $1`,
      [ids[2]],
    );
    const setTokenRef = (ref: string) =>
      db.query(
        `update billing_subscriptions set payment = jsonb_set(payment, '{token_ref}', to_jsonb($2::text)) where id = $1`,
        [ids[2], ref],
      );
    await setTokenRef('missing');
    const day = { accountId: party.accountId, date: rows[0].next };
    await assert.rejects(
      renewDueSubscriptions(svc.service.ctx, day),
      new RegExp(`renewals of subscriptions ${ids[2]} failed: vault entry missing`),
    );
    const renewedIds = async () =>
      (
        await db.query<{ id: number }>(
          `select subscription_id::int as id from billing_subscription_charges
            where parcel = 2 and subscription_id = any($1) order by 1`,
          [ids],
        )
      ).rows.map((r) => r.id);
    assert.deepEqual(await renewedIds(), [ids[0], ids[1], ids[3]]);
    await setTokenRef(rows[0].ref);
    assert.equal((await renewDueSubscriptions(svc.service.ctx, day)).renewed, 1);
    assert.deepEqual(await renewedIds(), ids);
  });

  it('a card fault asked for applies to renewals charge by charge (docs/faults.md)', async () => {
    const party = await svc.newParty();
    const api = billingApi(svc.anonymous, party);
    const db = svc.service.ctx.db;
    const plan = (await api.ok('POST', '/v1/plan', { name: 'Mensal', interval: 1 })).data.plan_id;
    const payment_token = await paymentToken(svc.anonymous, party.payeeCode, CARDS.approved, { reuse: true });
    for (let i = 0; i < 3; i++)
      await api.ok('POST', `/v1/plan/${plan}/subscription/one-step`, {
        items: [{ name: `Assinatura ${i}`, value: 990 }],
        payment: { credit_card: { customer, payment_token } },
      });
    const fault = await party.http.request('PUT', '/sandbox/falhas/cartao', {
      token: await party.token(),
      body: { codigo: '51', motivo: 'Saldo insuficiente', vezes: 1 },
    });
    assert.equal(fault.status, 200, fault.text);
    const { rows } = await db.query<{ next: string }>(
      `select distinct to_char(next_execution, 'YYYY-MM-DD') as next from billing_subscriptions where account_id = $1`,
      [party.accountId],
    );
    const renewed = await renewDueSubscriptions(svc.service.ctx, { accountId: party.accountId, date: rows[0].next });
    assert.equal(renewed.renewed, 3);
    const { rows: answers } = await db.query<{ status: string; reason: string | null }>(
      `select c.status, c.refusal_reason as reason from billing_subscription_charges s
         join billing_charges c on c.id = s.charge_id where c.account_id = $1 and s.parcel = 2 order by c.id`,
      [party.accountId],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      ['unpaid', 'approved', 'approved'],
      'the fault answers its one occurrence, the first renewal',
    );
    assert.equal(answers[0].reason, 'Saldo insuficiente');
  });
});
