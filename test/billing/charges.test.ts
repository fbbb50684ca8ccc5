/** Card charges: every transition, the sandbox outcomes, totals, installments, fee and payouts in the ledger. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { balanceCents, ledgerCode } from '../../src/platform/ledger/ledger.ts';
import { billingApi, CARDS, cardPayment, customer, items, paymentToken, type BillingApi } from './helpers.ts';

let svc: TestService;
let api: BillingApi;
const token = (number: string = CARDS.approved, extra: Record<string, unknown> = {}) =>
  paymentToken(svc.anonymous, svc.demo.payeeCode, number, extra);
const detail = async (id: number) => (await api.ok('GET', `/v1/charge/${id}`)).data;
const statusOf = async (id: number) => (await detail(id)).status as string;
const waitStatus = (id: number, status: string) =>
  waitFor(async () => (await statusOf(id)) === status, `charge ${id} ${status}`);

before(async () => {
  svc = await startTestService();
  api = billingApi(svc.anonymous, svc.demo);
});
after(() => svc.close());

describe('creating charges', () => {
  it('POST /v1/charge: status new, total = items × amount + shippings, in cents', async () => {
    const body = await api.ok('POST', '/v1/charge', {
      items: [...items, { name: 'Outro', value: 101 }],
      shippings: [{ name: 'Frete', value: 1500 }],
      metadata: { custom_id: 'pedido-1' },
    });
    assert.equal(body.code, 200);
    assert.equal(body.data.status, 'new');
    assert.equal(body.data.total, 5990 * 2 + 101 + 1500);
    assert.equal(body.data.custom_id, 'pedido-1');
    assert.match(body.data.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const d = await detail(body.data.charge_id);
    assert.deepEqual(
      d.history.map((h: any) => h.message),
      ['Cobrança criada.'],
    );
  });

  it("refuses bad bodies naming the property, unknown payees and another account's charge", async () => {
    const bad = await api.call('POST', '/v1/charge', { items: [{ name: 'x', value: 1.5 }] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'validation_error');
    assert.match(bad.body.error_description, /items\.0\.value|value/);
    const payee = await api.call('POST', '/v1/charge', {
      items: [{ name: 'x', value: 100, marketplace: { payee_code: 'a'.repeat(32), percentage: 1000 } }],
    });
    assert.equal(payee.status, 400);
    assert.equal(payee.body.error, 'invalid_payee_code');
    const other = await svc.newParty();
    const mine = await api.ok('POST', '/v1/charge', { items });
    const theirs = await billingApi(svc.anonymous, other).call('GET', `/v1/charge/${mine.data.charge_id}`);
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.code, 404);
  });
});

describe('card outcomes (sandbox, by the last digit)', () => {
  it('one-step with an approving card: approved at once; paid after the settlement delay on the service clock', async () => {
    const res = await api.ok('POST', '/v1/charge/one-step', {
      items,
      ...cardPayment(await token(), { installments: 3 }),
    });
    assert.equal(res.data.status, 'approved');
    assert.equal(res.data.total, 11980);
    assert.equal(res.data.installments, 3);
    assert.equal(res.data.installment_value, 4232); // (11980 + 715 interest (3 × 1.99 %, half-up)) / 3, half-up
    assert.equal(res.data.refusal, undefined);
    svc.advance(3600);
    await waitStatus(res.data.charge_id, 'paid');
    const d = await detail(res.data.charge_id);
    assert.deepEqual(
      d.history.map((h: any) => h.message.split('.')[0]),
      [
        'Cobrança criada',
        'Pagamento via cartão de crédito aguardando a resposta da operadora',
        'Pagamento via cartão de crédito aprovado pela operadora; aguardando confirmação',
        'Pagamento confirmado',
      ],
    );
    assert.match(d.payment.credit_card.mask, /^X{12}3335$/);
    assert.ok(!JSON.stringify(d).includes(CARDS.approved));
  });

  for (const [number, reason] of [
    [CARDS.invalidData, 'Invalid card data.'],
    [CARDS.security, 'Transaction not authorized for security reasons.'],
    [CARDS.tryLater, 'Transaction not authorized, please try again later.'],
  ] as const) {
    it(`one-step refused: last digit ${number.slice(-1)} → unpaid, "${reason}"`, async () => {
      const res = await api.ok('POST', '/v1/charge/one-step', { items, ...cardPayment(await token(number)) });
      assert.equal(res.data.status, 'unpaid');
      assert.deepEqual(res.data.refusal, { reason, retry: true });
      assert.equal((await detail(res.data.charge_id)).reason, reason);
    });
  }

  it('two steps: new → pay → waiting → approved → sandbox settle → paid; juridical person payer', async () => {
    const created = await api.ok('POST', '/v1/charge', { items });
    const id = created.data.charge_id;
    const company = { juridical_person: { corporate_name: 'Empresa Ltda', cnpj: '11222333000181' }, email: 'a@b.com' };
    const paid = await api.ok('POST', `/v1/charge/${id}/pay`, {
      payment: { credit_card: { customer: company, payment_token: await token() } },
    });
    assert.equal(paid.data.status, 'waiting');
    await waitStatus(id, 'approved');
    assert.equal(
      (await api.call('POST', `/v1/charge/${id}/pay`, cardPayment(await token()))).body.error,
      'invalid_charge_status',
    );
    await api.ok('POST', `/sandbox/billing/charge/${id}/settle`);
    assert.equal(await statusOf(id), 'paid');
    const d = await detail(id);
    assert.equal(d.payment.credit_card.juridical_person, true);
    assert.ok(d.history.some((h: any) => h.message.includes('Empresa Ltda')));
  });

  it("a sandbox settle right after /pay carries the issuer's answer instead of racing it", async () => {
    const approving = (await api.ok('POST', '/v1/charge', { items })).data.charge_id;
    await api.ok('POST', `/v1/charge/${approving}/pay`, cardPayment(await token()));
    await api.ok('POST', `/sandbox/billing/charge/${approving}/settle`);
    assert.equal(await statusOf(approving), 'paid');
    const refusing = (await api.ok('POST', '/v1/charge', { items })).data.charge_id;
    await api.ok('POST', `/v1/charge/${refusing}/pay`, cardPayment(await token(CARDS.tryLater)));
    const refused = await api.call('POST', `/sandbox/billing/charge/${refusing}/settle`);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error, 'invalid_charge_status');
    assert.equal(await statusOf(refusing), 'unpaid', "the issuer's refusal, recorded once");
    await outboxIdle(svc);
    assert.equal(await statusOf(approving), 'paid', 'the authorisation job changed nothing afterwards');
    assert.equal(await statusOf(refusing), 'unpaid');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('retry: only unpaid, card, with a new token → waiting → approved', async () => {
    const refused = await api.ok('POST', '/v1/charge/one-step', { items, ...cardPayment(await token(CARDS.tryLater)) });
    const id = refused.data.charge_id;
    const retried = await api.ok('POST', `/v1/charge/${id}/retry`, cardPayment(await token()));
    assert.equal(retried.data.status, 'waiting');
    await waitStatus(id, 'approved');
    const again = await api.call('POST', `/v1/charge/${id}/retry`, cardPayment(await token()));
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_charge_status');
    const fresh = await api.ok('POST', '/v1/charge', { items });
    const noCard = await api.call('POST', `/v1/charge/${fresh.data.charge_id}/retry`, cardPayment(await token()));
    assert.equal(noCard.body.error, 'retry_not_card');
  });

  it('a single-use token works once; a reusable one again; another account cannot use it', async () => {
    const single = await token();
    await api.ok('POST', '/v1/charge/one-step', { items, ...cardPayment(single) });
    const reused = await api.call('POST', '/v1/charge/one-step', { items, ...cardPayment(single) });
    assert.equal(reused.status, 400);
    assert.equal(reused.body.error, 'invalid_payment_token');
    const reusable = await token(CARDS.approved, { reuse: true });
    await api.ok('POST', '/v1/charge/one-step', { items, ...cardPayment(reusable) });
    await api.ok('POST', '/v1/charge/one-step', { items, ...cardPayment(reusable) });
    const other = await svc.newParty();
    const foreign = await billingApi(svc.anonymous, other).call('POST', '/v1/charge/one-step', {
      items,
      ...cardPayment(reusable),
    });
    assert.equal(foreign.body.error, 'invalid_payment_token');
    const expiring = await token();
    svc.advance(3601);
    assert.equal(
      (await api.call('POST', '/v1/charge/one-step', { items, ...cardPayment(expiring) })).body.error,
      'invalid_payment_token',
    );
  });

  it('cancel: new, waiting and unpaid charges; not approved or paid ones', async () => {
    const created = await api.ok('POST', '/v1/charge', { items });
    await api.ok('PUT', `/v1/charge/${created.data.charge_id}/cancel`);
    assert.equal(await statusOf(created.data.charge_id), 'canceled');
    const approved = await api.ok('POST', '/v1/charge/one-step', { items, ...cardPayment(await token()) });
    const refused = await api.call('PUT', `/v1/charge/${approved.data.charge_id}/cancel`);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'invalid_charge_status');
  });
});

describe('money', () => {
  it('discount, fee half-up on the paid amount, marketplace share and shipping payout, exact cents', async () => {
    const seller = await svc.newParty();
    const partner = await svc.newParty();
    const carrier = await svc.newParty();
    const sellerApi = billingApi(svc.anonymous, seller);
    const sellerToken = await paymentToken(svc.anonymous, seller.payeeCode, CARDS.approved);
    const db = svc.service.ctx.db;
    const res = await sellerApi.ok('POST', '/v1/charge/one-step', {
      items: [
        { name: 'Produto', value: 3333, amount: 3, marketplace: { payee_code: partner.payeeCode, percentage: 1250 } },
      ],
      shippings: [{ name: 'Frete', value: 1001, payee_code: carrier.payeeCode }],
      payment: { credit_card: { customer, payment_token: sellerToken, discount: { type: 'currency', value: 7 } } },
    });
    const total = 3333 * 3 + 1001 - 7; // 10993
    assert.equal(res.data.total, total);
    await sellerApi.ok('POST', `/sandbox/billing/charge/${res.data.charge_id}/settle`);
    const fee = Math.floor((total * 349 + 5000) / 10000); // 383.6557 → 384
    const share = Math.floor((9999 * 1250) / 10000); // 1249.875 → 1249
    // This charge's own fee entry: revenue:fees also grows with earlier tests' charges settling on their own.
    const feeEntry = await db.query<{ total: number }>(
      `select coalesce(sum(l.amount_cents), 0)::bigint as total from journal_lines l
         join journal_entries e on e.id = l.entry_id join ledger_accounts a on a.id = l.ledger_account_id
        where e.reference = $1 and a.code = $2`,
      [`billing_charge:${res.data.charge_id}`, ledgerCode.fees],
    );
    assert.equal(feeEntry.rows[0].total, fee);
    assert.equal(await balanceCents(db, ledgerCode.available(partner.accountId)), share);
    assert.equal(await balanceCents(db, ledgerCode.available(carrier.accountId)), 1001);
    assert.equal(await balanceCents(db, ledgerCode.available(seller.accountId)), total - fee - share - 1001);
    const refund = await sellerApi.call('POST', `/v1/charge/card/${res.data.charge_id}/refund`, {});
    assert.equal(refund.body.error, 'refund_marketplace');
    await assertLedgerBalanced(db);
  });
});

describe('refund rules', () => {
  async function paidCharge(): Promise<number> {
    const res = await api.ok('POST', '/v1/charge/one-step', { items, ...cardPayment(await token()) });
    await api.ok('POST', `/sandbox/billing/charge/${res.data.charge_id}/settle`);
    return res.data.charge_id;
  }
  const refund = (id: number, body?: unknown) => api.call('POST', `/v1/charge/card/${id}/refund`, body);
  const finishRefunds = async (id: number, status: string) => {
    svc.advance(60);
    await waitStatus(id, status);
  };

  it('only when paid; one in process at a time; one partial per day; never more than remains; then refunded', async () => {
    const unpaid = await api.ok('POST', '/v1/charge', { items });
    assert.equal((await refund(unpaid.data.charge_id)).body.error, 'invalid_charge_status');
    const id = await paidCharge();
    const first = await refund(id, { amount: 1000 });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { code: 200, status: 'processing', message: 'Estorno em processamento.' });
    assert.equal((await refund(id, { amount: 1000 })).body.error, 'refund_in_process');
    await finishRefunds(id, 'partially_refunded');
    assert.equal((await refund(id, { amount: 1000 })).body.error, 'partial_refund_daily_limit');
    assert.equal((await refund(id, { amount: 11980 })).body.error, 'refund_exceeds_remaining');
    svc.advance(86400);
    assert.equal((await refund(id, { amount: 500 })).status, 200);
    svc.advance(60);
    await waitFor(async () => (await detail(id)).refunded === 1500, 'second partial refund');
    assert.equal(await statusOf(id), 'partially_refunded');
    assert.equal((await refund(id)).status, 200); // absent: what remains
    await finishRefunds(id, 'refunded');
    const d = await detail(id);
    assert.equal(d.refunded, 11980);
    assert.equal((await refund(id)).body.error, 'invalid_charge_status');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('partial within 90 days, total within 360 days of payment confirmation', async () => {
    const id = await paidCharge();
    svc.advance(91 * 86400);
    assert.equal((await refund(id, { amount: 100 })).body.error, 'refund_window_expired');
    assert.equal((await refund(id)).status, 200);
    await finishRefunds(id, 'refunded');
    const late = await paidCharge();
    svc.advance(361 * 86400);
    assert.equal((await refund(late)).body.error, 'refund_window_expired');
  });
});
