/**
 * The official Node SDK (sdk-node-apis-efi) against pixd's billing family, pointed here with the same adapter
 * as the Pix compatibility test (src/testing/point-sdk.ts): createCharge, definePayMethod, detailCharge,
 * updateChargeMetadata, getNotification, getInstallments, createOneStepCharge, cardPaymentRetry, refundCard,
 * cancelCharge, and the SDK's error shape.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EfiPay } from '../compat/efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { waitFor } from '../helpers/wait.ts';
import { billingApi, CARDS, customer, items, paymentToken } from './helpers.ts';

let svc: TestService;
let restore: () => void;
let efi: EfiPay;
const card = (payment_token: string) => ({ payment: { credit_card: { customer, installments: 2, payment_token } } });
const token = (number: string = CARDS.approved) => paymentToken(svc.anonymous, svc.demo.payeeCode, number);

before(async () => {
  svc = await startTestService();
  restore = await pointSdkAt(svc.baseUrl, svc.caPem);
  efi = sdkFor(svc);
});
after(async () => {
  restore();
  await svc.close();
});

describe('sdk-node-apis-efi billing methods', () => {
  it('createCharge, definePayMethod, detailCharge, updateChargeMetadata, getNotification', async () => {
    const created: any = await efi.createCharge({}, { items, metadata: { custom_id: 'sdk-1' } });
    assert.equal(created.code, 200);
    assert.equal(created.data.status, 'new');
    const id = created.data.charge_id;
    const paid: any = await efi.definePayMethod({ id }, card(await token()) as any);
    assert.equal(paid.data.status, 'waiting');
    assert.equal(paid.data.installments, 2);
    await waitFor(async () => ((await efi.detailCharge({ id })) as any).data.status === 'approved', 'approved');
    const detail: any = await efi.detailCharge({ id });
    assert.equal(detail.data.items[0].name, items[0].name);
    assert.ok(detail.data.history.every((h: any) => typeof h.message === 'string'));
    assert.equal(((await efi.updateChargeMetadata({ id }, { custom_id: 'sdk-2', resend: false })) as any).code, 200);
    const { rows } = await svc.service.ctx.db.query<{ notification_token: string }>(
      'select notification_token from billing_charges where id = $1',
      [id],
    );
    const notes: any = await efi.getNotification({ token: rows[0].notification_token });
    assert.deepEqual(
      notes.data.map((n: any) => n.status.current),
      ['new', 'waiting', 'approved'],
    );
    assert.equal(notes.data[0].custom_id, 'sdk-2');
  });

  it('getInstallments, createOneStepCharge, cardPaymentRetry, refundCard, cancelCharge', async () => {
    const table: any = await efi.getInstallments({ brand: 'visa', total: 11980 } as any);
    assert.equal(table.data.installments.length, 12);
    assert.deepEqual(table.data.installments[0], {
      installment: 1,
      has_interest: false,
      value: 11980,
      currency: '119,80',
      interest_percentage: 0,
    });
    const refused: any = await efi.createOneStepCharge({}, { items, ...card(await token(CARDS.security)) } as any);
    assert.equal(refused.data.status, 'unpaid');
    assert.equal(refused.data.refusal.reason, 'Transaction not authorized for security reasons.');
    const retried: any = await efi.cardPaymentRetry({ id: refused.data.charge_id }, card(await token()) as any);
    assert.equal(retried.data.status, 'waiting');
    const approved: any = await efi.createOneStepCharge({}, { items, ...card(await token()) } as any);
    assert.equal(approved.data.status, 'approved');
    // Confirmed through the sandbox endpoint: moving the service clock an hour would expire the SDK's cached token.
    await billingApi(svc.anonymous, svc.demo).ok('POST', `/sandbox/billing/charge/${approved.data.charge_id}/settle`);
    assert.equal(((await efi.detailCharge({ id: approved.data.charge_id })) as any).data.status, 'paid');
    const refund: any = await efi.refundCard({ id: approved.data.charge_id }, { amount: 100 });
    assert.equal(refund.code, 200);
    const fresh: any = await efi.createCharge({}, { items });
    assert.equal(((await efi.cancelCharge({ id: fresh.data.charge_id })) as any).code, 200);
    await assert.rejects(efi.cancelCharge({ id: fresh.data.charge_id }), (error: any) => {
      assert.equal(error.code, 400);
      assert.equal(error.error, 'invalid_charge_status');
      assert.equal(typeof error.error_description, 'string');
      return true;
    });
  });
});
