/**
 * Subscriptions beyond the card paid at once, through the official SDK over HTTPS: a subscription link paid by
 * boleto and one paid by Pix (the boleto's QR) become active and renew by boleto; updateSubscriptionMetadata
 * moves the subscription's events and its charges' to the new URL and custom_id (a real HTTPS receiver);
 * updateSubscription stays card-only (the SDK's JSDoc); a card trial (`trial_days`) charges the first parcel
 * when the trial ends, and a trial cancelled before that charges nothing. The ledger balanced after each.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EfiPay } from '../compat/efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { Receiver } from '../helpers/receiver.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { CARDS, customer, items, paymentToken } from './helpers.ts';
import { brasiliaDate, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';
import { addMonths } from '../../src/billing/subscriptions/renewal.ts';

const DAY = 86_400;
let svc: TestService;
let restore: () => void;
let efi: EfiPay;
let receiver: Receiver;

before(async () => {
  svc = await startTestService();
  restore = await pointSdkAt(svc.baseUrl, svc.caPem);
  efi = sdkFor(svc);
  receiver = await Receiver.start({ clientCaPem: svc.caPem });
});
after(async () => {
  restore();
  await receiver.close();
  await svc.close();
});

const today = () => brasiliaDate(svc.clock.forAccount(svc.demo.accountId).now());
const plusDays = (date: string, days: number) => fromEpochDay(toEpochDay(date) + days);
const detail = async (id: number): Promise<any> => ((await efi.detailSubscription({ id })) as any).data;
const chargesOf = (d: any) => d.history.filter((h: any) => h.charge_id !== undefined);
const charge = async (id: number): Promise<any> => ((await efi.detailCharge({ id })) as any).data;
async function tokenOf(chargeId: number): Promise<string> {
  const { rows } = await svc.service.ctx.db.query<{ notification_token: string }>(
    'select notification_token from billing_charges where id = $1',
    [chargeId],
  );
  return rows[0].notification_token;
}
const eventsOf = async (chargeId: number): Promise<any[]> =>
  ((await efi.getNotification({ token: await tokenOf(chargeId) })) as any).data;
/** [type, previous, current] of a charge token's events. */
const shapes = (events: any[]) => events.map((e) => [e.type, e.status.previous, e.status.current]);
const card = async (extra: Record<string, unknown> = {}) => ({
  payment: {
    credit_card: {
      customer,
      payment_token: await paymentToken(svc.anonymous, svc.demo.payeeCode, CARDS.approved),
      ...extra,
    },
  },
});
/** The payer's choice on a link page (the form the page posts). */
const choose = (paymentUrl: string, fields: string) =>
  svc.anonymous.request('POST', `${new URL(paymentUrl).pathname}/choose`, {
    rawBody: fields,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
const payer = `name=${encodeURIComponent(customer.name)}&cpf=${customer.cpf}`;
const sandbox = async (path: string, body: unknown) =>
  svc.demo.http.request('POST', path, { token: await svc.demo.token(), body });

describe('subscription links paid by boleto or Pix (sdk-node-apis-efi)', () => {
  it('boleto: active at once, the first charge link → waiting → paid, the renewal a boleto issued ahead', async () => {
    const plan: any = await efi.createPlan({}, { name: 'Link por boleto', interval: 1, repeats: 3 });
    const expireAt = plusDays(today(), 5);
    const made: any = await efi.createOneStepSubscriptionLink({ id: plan.data.plan_id }, {
      items,
      metadata: { custom_id: 'sub-boleto' },
      settings: {
        expire_at: expireAt,
        request_delivery_address: false,
        payment_method: 'banking_billet',
        billet_discount: 1000,
      },
    } as any);
    assert.equal(made.data.status, 'new');
    const id = made.data.subscription_id;
    const chargeId = made.data.charge.id;
    assert.equal((await choose(made.data.payment_url, `method=banking_billet&${payer}`)).status, 303);

    const active = await detail(id);
    assert.equal(active.status, 'active');
    assert.equal(active.payment_method, 'banking_billet');
    assert.equal(active.next_execution, addMonths(expireAt, 1));
    const first = await charge(chargeId);
    assert.equal(first.status, 'waiting');
    assert.equal(first.payment.banking_billet.expire_at, expireAt);
    assert.equal(first.total, 11980 - 1198, 'the link’s boleto discount (10%)');
    const paid = await sandbox('/sandbox/boleto/pay', {
      codBarras: first.payment.banking_billet.barcode.replace(/\D/g, ''),
    });
    assert.equal(paid.status, 201, paid.text);
    // Paid by barcode: the charge is paid when the amount is credited (the next business day).
    svc.advance(Math.ceil((Date.parse(paid.body.creditoEm) - svc.clock.now().getTime()) / 1000) + 60);
    await waitFor(async () => (await charge(chargeId)).status === 'paid', 'first boleto paid');
    assert.deepEqual(shapes(await eventsOf(chargeId)), [
      ['subscription_charge', null, 'new'],
      ['subscription', null, 'new'],
      ['subscription_charge', 'new', 'link'],
      ['subscription_charge', 'link', 'waiting'],
      ['subscription', 'new', 'active'],
      ['subscription_charge', 'waiting', 'paid'],
    ]);

    // Parcel 2 is due a month after the first due date; its boleto is issued 10 days before that.
    const due = addMonths(expireAt, 1);
    svc.advance((toEpochDay(due) - 10 - toEpochDay(today())) * DAY + 60);
    await waitFor(async () => chargesOf(await detail(id)).length === 2, 'boleto renewal');
    const renewal = await charge(chargesOf(await detail(id))[1].charge_id);
    assert.equal(renewal.status, 'waiting');
    assert.equal(renewal.payment.banking_billet.expire_at, due);
    assert.equal(renewal.customer.cpf, customer.cpf);
    assert.equal(renewal.total, 11980 - 1198);
    assert.equal(renewal.custom_id, 'sub-boleto');
    await outboxIdle(svc);
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('Pix: the boleto’s QR paid, the subscription active and renewing by boleto', async () => {
    const plan: any = await efi.createPlan({}, { name: 'Link por Pix', interval: 1 });
    const made: any = await efi.createOneStepSubscriptionLink({ id: plan.data.plan_id }, {
      items,
      settings: { expire_at: today(), request_delivery_address: false, payment_method: 'all' },
    } as any);
    const chosen = await choose(made.data.payment_url, `method=pix&${payer}`);
    assert.equal(chosen.status, 303);
    const page = (await svc.anonymous.request('GET', new URL(made.data.payment_url).pathname)).text;
    const pixCode = /<code id="pix-code">([^<]+)<\/code>/.exec(page)![1].replaceAll('&amp;', '&');
    const paid = await sandbox('/sandbox/pix/pay', { pixCopiaECola: pixCode });
    assert.equal(paid.status, 201, paid.text);
    await waitFor(async () => (await charge(made.data.charge.id)).status === 'paid', 'paid by Pix');
    const d = await detail(made.data.subscription_id);
    assert.equal(d.status, 'active');
    assert.equal(d.payment_method, 'banking_billet');
    // A second choice changes nothing (the charge is no longer in link).
    assert.equal((await choose(made.data.payment_url, `method=banking_billet&${payer}`)).status, 303);
    assert.equal((await detail(made.data.subscription_id)).status, 'active');
    await outboxIdle(svc);
    await assertLedgerBalanced(svc.service.ctx.db);
  });
});

describe('subscription metadata and updates (sdk-node-apis-efi)', () => {
  it('events follow the notification_url and custom_id set later; updateSubscription is card-only', async () => {
    receiver.calls.length = 0;
    const plan: any = await efi.createPlan({}, { name: 'Avisos', interval: 1, repeats: 4 });
    const firstDue = plusDays(today(), 12);
    const made: any = await efi.createOneStepSubscription({ id: plan.data.plan_id }, {
      items,
      metadata: { notification_url: `${receiver.url}/old`, custom_id: 'antes' },
      payment: { banking_billet: { customer, expire_at: firstDue } },
    } as any);
    const id = made.data.subscription_id;
    const firstId = made.data.charge.id;
    await receiver.waitForCalls(1, '/old');
    await efi.updateSubscriptionMetadata({ id }, { notification_url: `${receiver.url}/new`, custom_id: 'depois' });
    await assert.rejects(
      efi.updateSubscription({ id }, { customer: { email: 'outro@example.com' } }),
      (e: any) => e.error === 'subscription_not_card',
    );
    // The first charge (the subscription's token) takes the new URL: its unqueried events go there now.
    const [moved] = await receiver.waitForCalls(1, '/new');
    assert.equal(moved.body.notification, await tokenOf(firstId));
    const first = await charge(firstId);
    assert.equal(first.custom_id, 'depois');

    // The renewal is made with the new metadata; the subscription's own event (new_charge) goes to the new URL.
    svc.advance((toEpochDay(addMonths(firstDue, 1)) - 10 - toEpochDay(today())) * DAY + 60);
    await waitFor(async () => chargesOf(await detail(id)).length === 2, 'renewal');
    const renewalId = chargesOf(await detail(id))[1].charge_id;
    const renewal = await charge(renewalId);
    assert.equal(renewal.custom_id, 'depois');
    const renewalToken = await tokenOf(renewalId);
    await waitFor(
      async () => receiver.callsTo('/new').some((c) => c.body.notification === renewalToken),
      'renewal notified',
    );
    const callsBefore = receiver.callsTo('/old').length;
    const events = await eventsOf(firstId);
    assert.deepEqual(events.at(-1).status, { previous: 'active', current: 'new_charge' });
    assert.ok(events.every((e) => e.custom_id === 'depois'));
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/old').length, callsBefore, 'nothing more to the old URL');

    // resend: the subscription's newest charge is notified again at once; the first one's token (queried) is not.
    const sent = (token: string) => receiver.callsTo('/new').filter((c) => c.body.notification === token).length;
    const [firstToken, renewalSends] = [await tokenOf(firstId), sent(renewalToken)];
    const firstSends = sent(firstToken);
    await efi.updateSubscriptionMetadata({ id }, { resend: true } as any);
    await waitFor(async () => sent(renewalToken) > renewalSends, 'the newest charge notified again');
    await outboxIdle(svc);
    assert.equal(sent(firstToken), firstSends, 'only the newest charge is resent');
    await assertLedgerBalanced(svc.service.ctx.db);
  });
});

describe('trial_days (sdk-node-apis-efi)', () => {
  it('a card trial: active at once, the first charge made when the trial ends, renewals an interval after', async () => {
    const plan: any = await efi.createPlan({}, { name: 'Teste grátis', interval: 1 });
    const start = today();
    const made: any = await efi.createOneStepSubscription({ id: plan.data.plan_id }, {
      items,
      ...(await card({ trial_days: 7 })),
    } as any);
    const trialEnd = plusDays(start, 7);
    assert.equal(made.data.status, 'active');
    assert.equal(made.data.charge.status, 'new');
    assert.equal(made.data.first_execution, trialEnd.split('-').reverse().join('/'));
    const id = made.data.subscription_id;
    assert.equal((await detail(id)).next_execution, trialEnd);
    // Not charged during the trial.
    svc.advance(6 * DAY);
    await outboxIdle(svc);
    assert.equal((await charge(made.data.charge.id)).status, 'new');
    svc.advance(DAY + 3600);
    await waitFor(async () => (await charge(made.data.charge.id)).status === 'approved', 'charged at the trial end');
    const d = await detail(id);
    assert.equal(d.status, 'active');
    assert.equal(d.next_execution, addMonths(trialEnd, 1));
    assert.equal((await charge(made.data.charge.id)).payment.credit_card.mask.slice(-4), CARDS.approved.slice(-4));
    svc.advance(2 * 3600);
    await waitFor(async () => (await charge(made.data.charge.id)).status === 'paid', 'settled');
    svc.advance(31 * DAY);
    await waitFor(async () => chargesOf(await detail(id)).length === 2, 'first renewal');
    assert.equal((await detail(id)).status, 'new_charge');
    await outboxIdle(svc);
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('cancelled during the trial: never charged; paid early: charged once; trial_days on a boleto refused', async () => {
    const plan: any = await efi.createPlan({}, { name: 'Desistência', interval: 1 });
    const made: any = await efi.createOneStepSubscription({ id: plan.data.plan_id }, {
      items,
      ...(await card({ trial_days: 3 })),
    } as any);
    // The payer pays the first charge before the trial ends: the trial's end charges nothing more.
    const early: any = await efi.createOneStepSubscription({ id: plan.data.plan_id }, {
      items,
      ...(await card({ trial_days: 3 })),
    } as any);
    await efi.definePayMethod({ id: early.data.charge.id }, (await card()) as any);
    const trialEnd = plusDays(today(), 3);
    await efi.cancelSubscription({ id: made.data.subscription_id });
    svc.advance(4 * DAY);
    await outboxIdle(svc);
    assert.equal((await charge(made.data.charge.id)).status, 'canceled');
    assert.equal(chargesOf(await detail(made.data.subscription_id)).length, 1);
    const paidEarly = await detail(early.data.subscription_id);
    assert.equal(paidEarly.next_execution, addMonths(trialEnd, 1));
    const earlyCharge = await charge(early.data.charge.id);
    assert.equal(earlyCharge.history.filter((h: any) => /aguardando a resposta/.test(h.message)).length, 1);
    await assertLedgerBalanced(svc.service.ctx.db);
    await assert.rejects(
      efi.createOneStepSubscription({ id: plan.data.plan_id }, {
        items,
        payment: { banking_billet: { customer, expire_at: today(), trial_days: 3 } },
      } as any),
      (e: any) => e.code === 400 && /trial_days/.test(JSON.stringify(e)),
    );
  });
});
