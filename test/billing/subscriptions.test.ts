/**
 * Plans and subscriptions through the official SDK (createPlan, listPlans, updatePlan, deletePlan,
 * createSubscription, defineSubscriptionPayMethod, createOneStepSubscription, detailSubscription,
 * updateSubscription, updateSubscriptionMetadata, createSubscriptionHistory, cancelSubscription): a card
 * subscription renewed three times by the account's clock (`/sandbox/clock/advance`, what `pixd clock advance`
 * calls), each renewal charged once with the stored card and settled; a cancelled one that renews no more; a
 * refused renewal card unpaid and not retryable; the ledger balanced. Payment links (createOneStepLink,
 * defineLinkPayMethod, updateChargeLink; the page's expiry on the account's clock), createOneStepSubscriptionLink
 * (its first charge paid through the page's checkout), a link paid by Pix (the page issues the boleto and shows
 * its linha digitável, PDF and QR; a second payment refused), sendLinkEmail and sendSubscriptionLinkEmail (the sandbox
 * mailbox) and createChargeCard
 * (/v2/charge/card). The link paid in a browser: test/billing/browser.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EfiPay } from '../compat/efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { billingApi, CARDS, customer, items, paymentToken } from './helpers.ts';
import { brasiliaDate } from '../../src/platform/calendar.ts';
import { addMonths } from '../../src/billing/subscriptions/renewal.ts';

const DAY = 86_400;
let svc: TestService;
let restore: () => void;
let efi: EfiPay;
const token = (number: string = CARDS.approved) => paymentToken(svc.anonymous, svc.demo.payeeCode, number);
const card = async (number?: string) => ({
  payment: { credit_card: { customer, payment_token: await token(number) } },
});
/** A month and a day on the demo account's clock: past midnight of the next renewal date. */
async function nextMonth(): Promise<void> {
  const res = await svc.demo.http.request('POST', '/sandbox/clock/advance', {
    token: await svc.demo.token(),
    body: { segundos: 31 * DAY },
  });
  assert.equal(res.status, 200, res.text);
}
const detail = async (id: number): Promise<any> => ((await efi.detailSubscription({ id })) as any).data;
const chargesOf = (d: any) => d.history.filter((h: any) => h.charge_id !== undefined);
async function notificationsOf(chargeId: number): Promise<any[]> {
  const { rows } = await svc.service.ctx.db.query<{ notification_token: string }>(
    'select notification_token from billing_charges where id = $1',
    [chargeId],
  );
  return ((await efi.getNotification({ token: rows[0].notification_token })) as any).data;
}
/** The subscription's own events (type subscription) on its first charge's token: [previous, current]. */
async function subscriptionEvents(d: any): Promise<string[][]> {
  const events = (await notificationsOf(chargesOf(d)[0].charge_id)).filter((e) => e.type === 'subscription');
  assert.ok(events.every((e) => e.identifiers.subscription_id === d.subscription_id));
  return events.map((e) => [e.status.previous, e.status.current]);
}

before(async () => {
  svc = await startTestService();
  restore = await pointSdkAt(svc.baseUrl, svc.caPem);
  efi = sdkFor(svc);
});
after(async () => {
  restore();
  await svc.close();
});

describe('plans and subscriptions (sdk-node-apis-efi)', () => {
  it('plans: create, list with filters, rename; delete only without living subscriptions', async () => {
    const monthly: any = await efi.createPlan({}, { name: 'Mensal ouro', interval: 1, repeats: 12 });
    assert.equal(monthly.data.repeats, 12);
    await efi.createPlan({}, { name: 'Anual prata', interval: 12 });
    const found: any = await efi.listPlans({ name: 'ouro', limit: 10, offset: 0 });
    assert.deepEqual(
      found.data.map((p: any) => p.name),
      ['Mensal ouro'],
    );
    assert.equal(((await efi.updatePlan({ id: monthly.data.plan_id }, { name: 'Mensal platina' })) as any).code, 200);
    const sub: any = await efi.createSubscription({ id: monthly.data.plan_id }, { items });
    assert.equal(sub.data.status, 'new');
    await assert.rejects(
      efi.deletePlan({ id: monthly.data.plan_id }),
      (e: any) => e.error === 'plan_has_subscriptions',
    );
    await efi.cancelSubscription({ id: sub.data.subscription_id });
    assert.equal(((await efi.deletePlan({ id: monthly.data.plan_id })) as any).code, 200);
    assert.equal(((await efi.listPlans({ name: 'platina' })) as any).data.length, 0);
  });

  it('a card subscription renews three times by the clock; a cancelled one and a refused card renew no more', async () => {
    const plan: any = await efi.createPlan({}, { name: 'Clube do livro', interval: 1 });
    const id = plan.data.plan_id;
    const renewing: any = await efi.createOneStepSubscription({ id }, {
      items,
      metadata: { custom_id: 'assinatura-1' },
      ...(await card()),
    } as any);
    assert.equal(renewing.data.status, 'active');
    assert.equal(renewing.data.charge.status, 'approved');
    const subId = renewing.data.subscription_id;
    // Two-step, then cancelled after its first charge.
    const created: any = await efi.createSubscription({ id }, { items });
    const paid: any = await efi.defineSubscriptionPayMethod(
      { id: created.data.subscription_id },
      (await card()) as any,
    );
    assert.equal(paid.data.status, 'active');
    await efi.cancelSubscription({ id: created.data.subscription_id });
    // Its first charge approved, every renewal refused (last digit 2): unpaid, not retryable (recurrent).
    const refusing: any = await efi.createOneStepSubscription({ id }, {
      items,
      ...(await card(CARDS.approved)),
    } as any);
    await svc.service.ctx.db.query(
      `update billing_subscriptions set payment = jsonb_set(payment, '{token_ref}', to_jsonb($2::text)) where id = $1`,
      [refusing.data.subscription_id, await refusedTokenRef()],
    );
    assert.equal(
      ((await efi.createSubscriptionHistory({ id: subId }, { description: 'Cliente VIP' })) as any).code,
      200,
    );
    await efi.updateSubscriptionMetadata({ id: subId }, { custom_id: 'assinatura-1b' });
    const changed: any = await efi.updateSubscription({ id: subId }, { customer: { email: 'novo@example.com' } });
    assert.equal(changed.data.customer.email, 'novo@example.com');

    for (let month = 1; month <= 3; month++) {
      await nextMonth();
      await waitFor(async () => chargesOf(await detail(subId)).length === month + 1, `renewal ${month}`);
      await outboxIdle(svc);
    }
    const d = await detail(subId);
    assert.equal(d.status, 'new_charge');
    assert.equal(d.occurrences, 4);
    assert.equal(d.custom_id, 'assinatura-1b');
    assert.deepEqual(
      chargesOf(d).map((c: any) => [c.parcel, c.status]),
      [
        [1, 'paid'],
        [2, 'paid'],
        [3, 'paid'],
        [4, 'approved'],
      ],
    );
    assert.ok(d.history.some((h: any) => h.message === 'Cliente VIP'));
    const renewal: any = await efi.detailCharge({ id: chargesOf(d)[1].charge_id });
    assert.equal(renewal.data.payment.credit_card.mask.slice(-4), CARDS.approved.slice(-4));
    assert.equal(renewal.data.custom_id, 'assinatura-1b');
    assert.deepEqual(
      (await notificationsOf(renewal.data.charge_id)).map((e) => [
        e.type,
        e.status.current,
        e.identifiers.subscription_id,
      ]),
      ['new', 'waiting', 'approved', 'paid'].map((status) => ['subscription_charge', status, subId]),
    );
    assert.deepEqual(await subscriptionEvents(d), [
      [null, 'new'],
      ['new', 'active'],
      ['active', 'new_charge'],
      ['new_charge', 'new_charge'],
      ['new_charge', 'new_charge'],
    ]);

    const cancelled = await detail(created.data.subscription_id);
    assert.equal(cancelled.status, 'canceled');
    assert.equal(chargesOf(cancelled).length, 1);
    assert.deepEqual((await subscriptionEvents(cancelled)).at(-1), ['active', 'canceled']);
    await assert.rejects(
      efi.defineSubscriptionPayMethod({ id: created.data.subscription_id }, (await card()) as any),
      (e: any) => e.error === 'invalid_subscription_status',
    );

    const refused = await detail(refusing.data.subscription_id);
    assert.deepEqual(
      chargesOf(refused).map((c: any) => c.status),
      ['paid', 'unpaid', 'unpaid', 'unpaid'],
    );
    const unpaid: any = await efi.detailCharge({ id: chargesOf(refused)[1].charge_id });
    assert.equal(unpaid.data.reason, 'Transaction not authorized for security reasons.');
    await assert.rejects(
      efi.cardPaymentRetry({ id: chargesOf(refused)[1].charge_id }, (await card()) as any),
      (e: any) => e.error === 'retry_recurrent',
    );
    await assertLedgerBalanced(svc.service.ctx.db);
  });
  it('a boleto subscription: the first charge a boleto, the renewal another issued ahead of its due date', async () => {
    const plan: any = await efi.createPlan({}, { name: 'Revista', interval: 1, repeats: 2 });
    const today = brasiliaDate(svc.clock.forAccount(svc.demo.accountId).now());
    const expire_at = today;
    const made: any = await efi.createOneStepSubscription({ id: plan.data.plan_id }, {
      items,
      payment: { banking_billet: { customer, expire_at, message: 'Assinatura da revista' } },
    } as any);
    assert.equal(made.data.status, 'active');
    assert.equal(made.data.payment, 'banking_billet');
    assert.equal(made.data.expire_at, expire_at);
    assert.match(made.data.pdf.charge, /\/boleto\/.+\.pdf$/);
    await nextMonth();
    const id = made.data.subscription_id;
    await waitFor(async () => chargesOf(await detail(id)).length === 2, 'boleto renewal');
    const d = await detail(id);
    assert.equal(d.status, 'expired');
    assert.equal(d.payment_method, 'banking_billet');
    const renewal: any = await efi.detailCharge({ id: chargesOf(d)[1].charge_id });
    assert.equal(renewal.data.status, 'waiting');
    // Due a month after the first, or today when the clock jumped past that date.
    const due = addMonths(expire_at, 1);
    const now = brasiliaDate(svc.clock.forAccount(svc.demo.accountId).now());
    assert.equal(renewal.data.payment.banking_billet.expire_at, due < now ? now : due);
    assert.notEqual(renewal.data.payment.banking_billet.barcode, made.data.barcode);
    assert.deepEqual((await subscriptionEvents(d)).at(-1), ['active', 'expired']);
  });
});

describe('renewals of many subscriptions on one day (the benchmark, small: bench/scenarios/subscription-renewals.ts)', () => {
  it('50 subscriptions renewing on the same date are each charged once when the clock passes midnight', async () => {
    const party = await svc.newParty();
    const api = billingApi(svc.anonymous, party);
    const plan = (await api.ok('POST', '/v1/plan', { name: 'Mensal', interval: 1 })).data.plan_id;
    const payment_token = await paymentToken(svc.anonymous, party.payeeCode, CARDS.approved, { reuse: true });
    const n = 50;
    for (let i = 0; i < n; i += 10)
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          api.ok('POST', `/v1/plan/${plan}/subscription/one-step`, {
            items: [{ name: `Assinatura ${i + j}`, value: 1990 }],
            payment: { credit_card: { customer, payment_token } },
          }),
        ),
      );
    const res = await party.http.request('POST', '/sandbox/clock/advance', {
      token: await party.token(),
      body: { segundos: 31 * DAY },
    });
    assert.equal(res.status, 200, res.text);
    const parcels = async () =>
      (
        await svc.service.ctx.db.query<{ parcel: number; n: number; subs: number; answered: number }>(
          `select s.parcel, count(*)::int as n, count(distinct s.subscription_id)::int as subs,
             count(*) filter (where c.status not in ('new', 'waiting'))::int as answered
           from billing_subscription_charges s join billing_charges c on c.id = s.charge_id
           where c.account_id = $1 group by s.parcel order by s.parcel`,
          [party.accountId],
        )
      ).rows;
    await waitFor(async () => (await parcels())[1]?.answered === n, 'every renewal answered');
    await outboxIdle(svc);
    assert.deepEqual(
      (await parcels()).map((p) => [p.parcel, p.n, p.subs]),
      [
        [1, n, n],
        [2, n, n],
      ],
    );
    await assertLedgerBalanced(svc.service.ctx.db);
  });
});

describe('payment links and /v2/charge/card (sdk-node-apis-efi)', () => {
  it('createOneStepLink, defineLinkPayMethod, updateChargeLink; the page expires on the account clock; createChargeCard', async () => {
    const today = brasiliaDate(svc.clock.forAccount(svc.demo.accountId).now());
    const settings = { expire_at: today, request_delivery_address: false, payment_method: 'credit_card' as const };
    const made: any = await efi.createOneStepLink({}, { items, settings: { ...settings, card_discount: 500 } } as any);
    assert.equal(made.data.status, 'link');
    assert.equal(made.data.card_discount, 500);
    assert.match(made.data.payment_url, /\/link\/[\w-]{24}$/);
    const plain: any = await efi.createCharge({}, { items });
    const defined: any = await efi.defineLinkPayMethod({ id: plain.data.charge_id }, {
      ...settings,
      message: 'Obrigado!',
    } as any);
    assert.equal(defined.data.status, 'link');
    const updated: any = await efi.updateChargeLink({ id: plain.data.charge_id }, {
      ...settings,
      message: 'Volte sempre',
    } as any);
    assert.equal(updated.data.message, 'Volte sempre');
    assert.equal(
      ((await efi.sendLinkEmail({ id: plain.data.charge_id }, { email: 'cliente@example.com' })) as any).code,
      200,
    );
    await assert.rejects(
      efi.defineLinkPayMethod({ id: plain.data.charge_id }, settings as any),
      (e: any) => e.error === 'invalid_charge_status',
    );
    const page = async () => (await svc.anonymous.request('GET', new URL(made.data.payment_url).pathname)).text;
    assert.match(await page(), /Continuar para o pagamento/);
    await nextMonth();
    assert.match(await page(), /Este link expirou em/);
    const form = await svc.anonymous.request('POST', `${new URL(made.data.payment_url).pathname}/choose`, {
      rawBody: 'method=credit_card',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 400);

    // A subscription link: the payer pays the first charge by card through the page; the subscription is active.
    const plan: any = await efi.createPlan({}, { name: 'Pelo link', interval: 3 });
    const subLink: any = await efi.createOneStepSubscriptionLink({ id: plan.data.plan_id }, {
      items,
      settings: { ...settings, expire_at: brasiliaDate(svc.clock.forAccount(svc.demo.accountId).now()) },
    } as any);
    assert.equal(subLink.data.status, 'new');
    await efi.sendSubscriptionLinkEmail({ id: subLink.data.charge.id }, { email: 'assinante@example.com' });
    const mailbox = (await billingApi(svc.anonymous, svc.demo).ok('GET', '/sandbox/billing/mail')).data;
    assert.ok(
      mailbox.some(
        (m: any) => m.to === 'cliente@example.com' && m.body.includes(new URL(defined.data.payment_url).pathname),
      ),
    );
    assert.ok(mailbox.some((m: any) => m.to === 'assinante@example.com' && m.body.includes(subLink.data.payment_url)));
    const chosen = await svc.anonymous.request('POST', `${new URL(subLink.data.payment_url).pathname}/choose`, {
      rawBody: 'method=credit_card',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(chosen.status, 303);
    const checkout = String(chosen.headers.location);
    const pay = await svc.anonymous.request('POST', `${checkout}/pay`, {
      body: { payment_token: await token(), customer, installments: 1 },
    });
    assert.equal(pay.status, 200, pay.text);
    const active = await detail(subLink.data.subscription_id);
    assert.equal(active.status, 'active');
    assert.equal(active.payment_method, 'credit_card');
    assert.match(active.next_execution, /^\d{4}-\d{2}-\d{2}$/);

    // Pix on the page: the charge's boleto is issued and its QR shown; paid once, a second payment refused.
    const all: any = await efi.createOneStepLink({}, {
      items,
      settings: {
        ...settings,
        expire_at: brasiliaDate(svc.clock.forAccount(svc.demo.accountId).now()),
        payment_method: 'all',
      },
    } as any);
    const path = new URL(all.data.payment_url).pathname;
    const post = (rawBody: string) =>
      svc.anonymous.request('POST', `${path}/choose`, {
        rawBody,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    assert.equal((await post('method=pix&name=Fulano&cpf=123')).status, 400);
    const chosenPix = await post(`method=pix&name=${encodeURIComponent(customer.name)}&cpf=${customer.cpf}`);
    assert.equal(chosenPix.status, 303);
    assert.equal(chosenPix.headers.location, `${path}#pix`);
    const boletoPage = (await svc.anonymous.request('GET', path)).text;
    const line = /<code id="boleto-line">([^<]+)<\/code>/.exec(boletoPage)![1];
    const pixCode = /<code id="pix-code">([^<]+)<\/code>/.exec(boletoPage)![1].replaceAll('&amp;', '&');
    const issued: any = await efi.detailCharge({ id: all.data.charge_id });
    assert.equal(issued.data.status, 'waiting');
    assert.equal(line, issued.data.payment.banking_billet.barcode);
    assert.match(boletoPage, /id="boleto-pdf" href="[^"]+\/boleto\/[\w-]+\.pdf"/);
    const paidByPix = await svc.demo.http.request('POST', '/sandbox/pix/pay', {
      token: await svc.demo.token(),
      body: { pixCopiaECola: pixCode },
    });
    assert.equal(paidByPix.status, 201, paidByPix.text);
    const twice = await svc.demo.http.request('POST', '/sandbox/boleto/pay', {
      token: await svc.demo.token(),
      body: { codBarras: issued.data.payment.banking_billet.barcode_digits ?? line.replace(/\D/g, '') },
    });
    assert.equal(twice.status, 400, twice.text);
    assert.equal(((await efi.detailCharge({ id: all.data.charge_id })) as any).data.status, 'paid');
    assert.match((await svc.anonymous.request('GET', path)).text, /Pagamento aprovado[\s\S]*Boleto ou Pix/);

    const v2: any = await efi.createChargeCard({}, {
      items,
      customer,
      installments: 1,
      payment_token: await token(),
      tds_info: { tds_identifier: 'x', challenge_callback_url: 'https://example.com/3ds' },
    } as any);
    assert.equal(v2.status, 'approved');
    assert.equal(v2.total, 11980);
  });
});

/** The vault reference of a card the sandbox refuses (last digit 2), as a spent token leaves it. */
async function refusedTokenRef(): Promise<string> {
  const charge: any = await efi.createOneStepCharge({}, { items, ...(await card(CARDS.security)) } as any);
  const { rows } = await svc.service.ctx.db.query<{ ref: string }>(
    `select payment->>'token_ref' as ref from billing_charges where id = $1`,
    [charge.data.charge_id],
  );
  return rows[0].ref;
}
