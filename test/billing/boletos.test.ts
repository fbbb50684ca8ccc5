/**
 * Boletos and carnês through the official SDK (sdk-node-apis-efi): issued on one-step and two-step charges,
 * their barcode and linha digitável checked by an independent library (@mrmgomes/boleto-utils), the PDF read back
 * with pdftotext, paid once by Pix or barcode (credited the next business day), unpaid past the due date with the
 * amount after it to the cent, their life (billet, settle, cancel, history, balance sheet, resend, list) and
 * carnês with their parcels and carnet/carnet_charge notifications. One server for the file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import validator from 'boleto-brasileiro-validator';
import type { EfiPay } from '../compat/efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { waitFor } from '../helpers/wait.ts';
import { Receiver } from '../helpers/receiver.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { billingApi, customer, items, type BillingApi } from './helpers.ts';
import { brasiliaDate, fromEpochDay, nextBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import { BoletoPaymentRefused, findByBarcode, payBoleto } from '../../src/billing/boletos/service.ts';
import { sendBillingMail } from '../../src/billing/mail/service.ts';

let svc: TestService;
let restore: () => void;
let efi: EfiPay;
let api: BillingApi;
/** An account of its own for the tests that move its clock (the demo's SDK token stays valid). */
let late: Party;
let lateApi: BillingApi;
let receiver: Receiver;

before(async () => {
  svc = await startTestService();
  restore = await pointSdkAt(svc.baseUrl, svc.caPem);
  efi = sdkFor(svc);
  api = billingApi(svc.anonymous, svc.demo);
  late = await svc.newParty({ nome: 'Loja Atrasada' });
  lateApi = billingApi(svc.anonymous, late);
  receiver = await Receiver.start({ clientCaPem: svc.caPem });
});
after(async () => {
  await receiver.close();
  restore();
  await svc.close();
});

const today = () => brasiliaDate(new Date(svc.clock.now()));
/** A business day at least `days` calendar days after today: no weekend moves the due date in the expectations. */
const businessDayAfter = (days: number) => fromEpochDay(nextBusinessDay(toEpochDay(today()) + days));

/**
 * Every boleto the tests issue: its check digits (the barcode's general DV by modulo 11, the linha's field DVs
 * by modulo 10) checked by boleto-brasileiro-validator, not by pixd's code; the layout read here by position.
 */
function checkIndependently(answer: { barcode: string; barcode_digits: string; expire_at: string }, cents: number) {
  const line = answer.barcode.replace(/[\s.]/g, '');
  const bar = answer.barcode_digits;
  assert.equal(line.length, 47);
  assert.equal(bar.length, 44);
  assert.equal(validator.boleto(bar), true, `barcode ${bar}`);
  assert.equal(validator.boleto(line, true), true, `linha digitável ${line}`);
  // The linha carries the barcode's digits: bank+currency+free[0,5) | free[5,15) | free[15,25) | DV | factor+amount.
  assert.equal(
    line.slice(0, 4) + line[32] + line.slice(33) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31),
    bar,
  );
  assert.equal(Number(bar.slice(9, 19)), cents);
  // The due-date factor of the current cycle (restarted at 1000 on 2025-02-22).
  assert.equal(Number(bar.slice(5, 9)), 1000 + toEpochDay(answer.expire_at) - toEpochDay('2025-02-22'));
}

const billet = (expire_at: string, extra: Record<string, unknown> = {}) => ({
  payment: { banking_billet: { customer, expire_at, ...extra } },
});
const terms = {
  discount: { type: 'currency', value: 980 },
  configurations: { fine: 200, interest: 33 },
  message: 'Pagável até o vencimento sem encargos.',
};
/** items (2 × 59.90) − 9.80: the amount of every boleto with `terms`. */
const AMOUNT = 11000;

/** A page's bytes as a browser gets them (no certificate; the response is binary). */
function fetchBytes(pathname: string): Promise<{ status: number; type: string; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    https
      .get(new URL(pathname, svc.baseUrl), { ca: svc.caPem }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            bytes: Buffer.concat(chunks),
          }),
        );
      })
      .on('error', reject);
  });
}

/** The text of a PDF as pdftotext (poppler-utils) extracts it: what a reader of the document sees. */
function pdfText(bytes: Buffer): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'boleto-')), 'document.pdf');
  fs.writeFileSync(file, bytes);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}

const pixToken = async (party: Party) => party.token();
async function pixPay(party: Party, body: Record<string, unknown>) {
  return party.http.request('POST', '/sandbox/pix/pay', { token: await pixToken(party), body });
}
async function boletoPay(party: Party, codigo: string) {
  return party.http.request('POST', '/sandbox/boleto/pay', {
    token: await pixToken(party),
    body: { codBarras: codigo },
  });
}
async function advance(party: Party, seconds: number) {
  const res = await party.http.request('POST', '/sandbox/clock/advance', {
    token: await pixToken(party),
    body: { segundos: seconds },
  });
  assert.equal(res.status, 200, res.text);
}
const status = async (client: BillingApi, id: number) => (await client.ok('GET', `/v1/charge/${id}`)).data.status;
async function balanceCents(party: Party): Promise<number> {
  const res = await party.http.request('GET', '/v2/gn/saldo', { token: await pixToken(party) });
  return Math.round(Number(res.body.saldo) * 100);
}
async function notificationsOf(client: BillingApi, chargeId: number) {
  const { rows } = await svc.service.ctx.db.query<{ notification_token: string }>(
    'select notification_token from billing_charges where id = $1',
    [chargeId],
  );
  return (await client.ok('GET', `/v1/notification/${rows[0].notification_token}`)).data as any[];
}

describe('boletos', () => {
  it('one-step: barcode, linha digitável, Pix QR, link and a PDF whose text shows what a payer needs', async () => {
    const due = businessDayAfter(5);
    const answer: any = await efi.createOneStepCharge({}, {
      items,
      metadata: { custom_id: 'bol-1', notification_url: 'https://127.0.0.1:1/never' },
      ...billet(due, terms),
    } as any);
    assert.equal(answer.code, 200);
    const data = answer.data;
    assert.equal(data.status, 'waiting');
    assert.equal(data.payment, 'banking_billet');
    assert.equal(data.total, AMOUNT);
    assert.equal(data.expire_at, due);
    assert.match(data.barcode, /^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
    checkIndependently(data, AMOUNT);
    assert.match(data.pix.qrcode, /^000201/);
    assert.match(data.pix.qrcode_image, /^data:image\/svg\+xml;base64,/);
    assert.deepEqual(data.configurations, { days_to_write_off: 30, interest_type: 'daily', interest: 33, fine: 200 });
    const pdf = await fetchBytes(new URL(data.pdf.charge).pathname);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.type, 'application/pdf');
    assert.equal(pdf.bytes.subarray(0, 5).toString(), '%PDF-');
    const text = pdfText(pdf.bytes);
    const { rows } = await svc.service.ctx.db.query<{ nome: string }>('select nome from accounts where id = $1', [
      svc.demo.accountId,
    ]);
    for (const expected of [
      rows[0].nome,
      'R$ 110,00',
      due.split('-').reverse().join('/'),
      data.barcode,
      customer.name,
      'cobrar multa de R$ 2,20',
      'juros de R$ 0,04 por dia',
    ])
      assert.ok(text.includes(expected), `PDF text lacks "${expected}":\n${text}`);
    const missing = await svc.anonymous.request('GET', '/boleto/AAAAAAAAAAAAAAAAAAAAAAAA.pdf');
    assert.equal(missing.status, 404);
  });

  it('a PDF for a payer named in another script: what the standard fonts cannot draw is replaced, never a 500', async () => {
    const answer: any = await efi.createOneStepCharge({}, {
      items,
      payment: {
        banking_billet: {
          customer: { ...customer, name: 'Dvořák Nguyễn 中文' },
          expire_at: businessDayAfter(5),
          message: 'Obrigado 🙂',
        },
      },
    } as any);
    const pdf = await fetchBytes(new URL(answer.data.pdf.charge).pathname);
    assert.equal(pdf.status, 200);
    const text = pdfText(pdf.bytes);
    assert.ok(text.includes('Dvorák Nguyen ??'), `accents outside WinAnsi lose their mark:\n${text}`);
    assert.ok(text.includes('Obrigado ?'), text);
  });

  it('paid by its Pix QR at once, then its barcode is refused: paid once; ledger balanced', async () => {
    const created: any = await efi.createCharge({}, { items });
    const id = created.data.charge_id;
    const issued: any = await efi.definePayMethod({ id }, billet(businessDayAfter(3), terms) as any);
    assert.equal(issued.data.status, 'waiting');
    checkIndependently(issued.data, AMOUNT);
    const before = await balanceCents(svc.demo);
    const paid = await pixPay(svc.demo, { pixCopiaECola: issued.data.pix.qrcode });
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.valor, '110.00');
    assert.equal(await status(api, id), 'paid');
    assert.equal(await balanceCents(svc.demo), before + AMOUNT);
    const again = await boletoPay(svc.demo, issued.data.barcode);
    assert.equal(again.status, 400);
    assert.equal(again.body.violacoes[0].razao, 'boleto_pago');
    const events = await notificationsOf(api, id);
    assert.deepEqual(
      events.map((e) => e.status.current),
      ['new', 'waiting', 'paid'],
    );
    assert.equal(events[2].value, AMOUNT);
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('paid by barcode: the QR is withdrawn, credited and paid on the next business day of the account clock', async () => {
    const answer = await lateApi.ok('POST', '/v1/charge/one-step', { items, ...billet(businessDayAfter(3), terms) });
    const id = answer.data.charge_id;
    checkIndependently(answer.data, AMOUNT);
    const before = await balanceCents(late);
    const paid = await boletoPay(late, answer.data.barcode_digits);
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.valor, '110.00');
    const creditAt = new Date(paid.body.creditoEm);
    assert.equal(
      brasiliaDate(creditAt),
      fromEpochDay(nextBusinessDay(toEpochDay(brasiliaDate(new Date(paid.body.pagoEm))) + 1)),
    );
    assert.equal(await status(lateApi, id), 'waiting');
    const pix = await pixPay(late, { pixCopiaECola: answer.data.pix.qrcode });
    assert.equal(pix.status, 400);
    assert.equal(pix.body.violacoes[0].razao, 'cobranca_removida');
    await advance(late, Math.ceil((creditAt.getTime() - Date.parse(paid.body.pagoEm)) / 1000) + 60);
    await waitFor(async () => (await status(lateApi, id)) === 'paid', 'compensated');
    assert.equal(await balanceCents(late), before + AMOUNT);
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('a conditional discount until a date, then unpaid past the due date with fine and daily interest to the cent', async () => {
    const clock = await late.http.request('GET', '/sandbox/clock', { token: await pixToken(late) });
    const due = brasiliaDate(new Date(clock.body.agora));
    const answer = await lateApi.ok('POST', '/v1/charge/one-step', {
      items,
      ...billet(due, { ...terms, conditional_discount: { type: 'percentage', value: 500, until_date: due } }),
    });
    const id = answer.data.charge_id;
    checkIndependently(answer.data, AMOUNT);
    const found = await svc.service.ctx.db.query<{ charge_id: number }>(
      'select charge_id from billing_boletos where barcode = $1',
      [answer.data.barcode_digits],
    );
    assert.equal(Number(found.rows[0].charge_id), id);
    // Today (on or before until_date): 110.00 − 5 % = 104.50; not paid now, to see it go unpaid.
    const now = await findByBarcode(svc.service.ctx.db, answer.data.barcode_digits, due);
    assert.equal(now!.amountCents, 10450);
    // Three days after the (business, or moved to the next business) due date: 2 % fine once, 0.033 % a day.
    const dueDay = nextBusinessDay(toEpochDay(due));
    const lateDay = fromEpochDay(dueDay + 3);
    await advance(late, (dueDay + 3 - toEpochDay(due)) * 86400);
    await waitFor(async () => (await status(lateApi, id)) === 'unpaid', 'unpaid after the due date');
    const after = await findByBarcode(svc.service.ctx.db, answer.data.barcode_digits, lateDay);
    assert.deepEqual(after!.components, { original: AMOUNT, multa: 220, juros: 12, desconto: 0 });
    assert.equal(after!.amountCents, 11232);
    const paid = await boletoPay(late, answer.data.barcode);
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.valor, '112.32');
  });

  it('updateBillet, createChargeHistory, defineBalanceSheetBillet, sendBilletEmail, settleCharge, cancelCharge, listCharges', async () => {
    const first: any = await efi.createOneStepCharge({}, { items, ...billet(businessDayAfter(2), terms) } as any);
    const id = first.data.charge_id;
    const due = businessDayAfter(10);
    assert.equal(((await efi.updateBillet({ id }, { expire_at: due })) as any).code, 200);
    const moved: any = await efi.detailCharge({ id });
    assert.equal(moved.data.payment.banking_billet.expire_at, due);
    checkIndependently(moved.data.payment.banking_billet, AMOUNT);
    assert.notEqual(moved.data.payment.banking_billet.barcode, first.data.barcode);
    assert.notEqual(moved.data.payment.banking_billet.pix.qrcode, first.data.pix.qrcode);
    const oldQr = await pixPay(svc.demo, { pixCopiaECola: first.data.pix.qrcode });
    assert.equal(oldQr.status, 400);
    assert.equal(((await efi.createChargeHistory({ id }, { description: 'Cliente avisado.' })) as any).code, 200);
    const sheet = {
      title: 'Balancete de março',
      body: [
        {
          header: 'Despesas',
          tables: [{ rows: [[{ align: 'left', color: '#000', style: 'bold', text: 'Água', colspan: 1 }]] }],
        },
      ],
    };
    assert.equal(((await efi.defineBalanceSheetBillet({ id }, sheet)) as any).code, 200);
    assert.equal(((await efi.sendBilletEmail({ id }, { email: 'pagador@example.com' })) as any).code, 200);
    const mail = await api.ok('GET', '/sandbox/billing/mail');
    assert.equal(mail.data[0].to, 'pagador@example.com');
    assert.ok(mail.data[0].body.includes(moved.data.payment.banking_billet.barcode));
    assert.equal(((await efi.settleCharge({ id })) as any).code, 200);
    const settled: any = await efi.detailCharge({ id });
    assert.equal(settled.data.status, 'settled');
    assert.ok(settled.data.history.some((h: any) => h.message === 'Cliente avisado.'));
    const other: any = await efi.createOneStepCharge({}, { items, ...billet(businessDayAfter(2), terms) } as any);
    checkIndependently(other.data, AMOUNT);
    assert.equal(((await efi.cancelCharge({ id: other.data.charge_id })) as any).code, 200);
    const canceledQr = await pixPay(svc.demo, { pixCopiaECola: other.data.pix.qrcode });
    assert.equal(canceledQr.status, 400);
    const listed: any = await efi.listCharges({
      charge_type: 'billet',
      begin_date: today(),
      end_date: today(),
      status: 'settled',
    } as any);
    assert.deepEqual(
      listed.data.map((c: any) => c.id),
      [id],
    );
    assert.equal(listed.data[0].payment.banking_billet.barcode, moved.data.payment.banking_billet.barcode);
    const cards: any = await efi.listCharges({ charge_type: 'card', begin_date: today(), end_date: today() } as any);
    assert.deepEqual(cards.data, []);
    const refused = await api.call('PUT', `/v1/charge/${id}/billet`, { expire_at: due });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'invalid_charge_status');
  });
});

describe('boletos: what production refuses and payBoleto refuses', () => {
  it('a production node refuses e-mails (no SMTP sender); payBoleto refuses a wrong amount and a second payment', async () => {
    const db = svc.service.ctx.db;
    const mail = { accountId: svc.demo.accountId, to: 'a@example.com', subject: 's', body: 'b', reference: 'charge:1' };
    await assert.rejects(
      db.tx((sql) => sendBillingMail(sql, { delivery: 'none' }, mail, new Date())),
      (e: any) => e.statusCode === 503 && e.errorName === 'mail_not_configured',
    );
    const issued = await api.ok('POST', '/v1/charge/one-step', { items, ...billet(businessDayAfter(3), terms) });
    const id = issued.data.charge_id;
    const payer = { nome: 'Pagador' };
    const pay = (amountCents: number) =>
      db.tx((sql) =>
        payBoleto(
          sql,
          { now: new Date(svc.clock.now()) },
          { chargeId: id, amountCents, paidAt: new Date(svc.clock.now()), payer },
        ),
      );
    await assert.rejects(
      pay(AMOUNT - 1),
      (e: any) => e instanceof BoletoPaymentRefused && e.code === 'valor_divergente',
    );
    const { creditAt } = await pay(AMOUNT);
    assert.ok(creditAt.getTime() > Date.now());
    await assert.rejects(pay(AMOUNT), (e: any) => e instanceof BoletoPaymentRefused && e.code === 'boleto_pago');
    const found = await findByBarcode(db, issued.data.barcode_digits, today());
    assert.equal(found!.payable, false);
    assert.equal(found!.beneficiary.documento.length > 0, true);
  });
});

describe('carnês', () => {
  const carnetItems = [{ name: 'Mensalidade', value: 5000, amount: 1 }];
  const carnetOf = async (id: number) => ((await efi.detailCarnet({ id })) as any).data;

  it('createCarnet: monthly parcels, each a boleto with Pix; a parcel paid by Pix; carnet and carnet_charge notifications', async () => {
    const first = businessDayAfter(3);
    const created: any = await efi.createCarnet({}, {
      items: carnetItems,
      customer,
      expire_at: first,
      repeats: 3,
      metadata: { custom_id: 'carne-1', notification_url: `${receiver.url}/carne` },
      configurations: { fine: 200, interest: 33 },
      message: 'Mensalidades do curso.',
    } as any);
    assert.equal(created.code, 200);
    const { carnet_id, charges } = created.data;
    assert.equal(created.data.status, 'active');
    assert.deepEqual(
      charges.map((c: any) => [c.parcel, c.status, c.value]),
      [
        [1, 'waiting', 5000],
        [2, 'waiting', 5000],
        [3, 'waiting', 5000],
      ],
    );
    for (const c of charges) checkIndependently(c, 5000);
    const [y, m, d] = first.split('-').map(Number);
    for (const [k, c] of charges.entries()) {
      const month = new Date(Date.UTC(y, m - 1 + k, 1));
      const lastDay = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 0)).getUTCDate();
      const expected = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), Math.min(d, lastDay)));
      assert.equal(c.expire_at, expected.toISOString().slice(0, 10));
    }
    const pdf = await fetchBytes(new URL(created.data.pdf.carnet).pathname);
    assert.equal(pdf.status, 200);
    const text = pdfText(pdf.bytes);
    for (const c of charges) assert.ok(text.includes(c.barcode), `carnê PDF lacks parcel ${c.parcel}`);
    assert.ok(text.includes('parcela 3/3'));

    const paid = await pixPay(svc.demo, { pixCopiaECola: charges[0].pix.qrcode });
    assert.equal(paid.status, 201, paid.text);
    const [call] = await receiver.waitForCalls(1, '/carne');
    const token = new URLSearchParams(String(call.body)).get('notification') ?? call.body.notification;
    const events: any = await efi.getNotification({ token });
    const kinds = events.data.map((e: any) => `${e.type}:${e.identifiers.charge_id ?? '-'}:${e.status.current}`);
    assert.deepEqual(kinds, [
      'carnet:-:active',
      `carnet_charge:${charges[0].charge_id}:waiting`,
      `carnet_charge:${charges[1].charge_id}:waiting`,
      `carnet_charge:${charges[2].charge_id}:waiting`,
      `carnet_charge:${charges[0].charge_id}:paid`,
    ]);
    assert.ok(events.data.every((e: any) => e.identifiers.carnet_id === carnet_id && e.custom_id === 'carne-1'));
    assert.equal(events.data.at(-1).value, 5000);
    assert.deepEqual(
      events.data.map((e: any) => e.id),
      [1, 2, 3, 4, 5],
    );

    const moved = businessDayAfter(40);
    assert.equal(((await efi.updateCarnetParcel({ id: carnet_id, parcel: 2 }, { expire_at: moved })) as any).code, 200);
    const later = businessDayAfter(70);
    const parcels: any = await efi.updateCarnetParcels({ id: carnet_id }, {
      parcels: [{ parcel: 3, expire_at: later }],
    } as any);
    assert.equal(parcels.code, 200);
    let detail = await carnetOf(carnet_id);
    assert.deepEqual(
      detail.charges.map((c: any) => c.expire_at),
      [charges[0].expire_at, moved, later],
    );
    for (const c of detail.charges) checkIndependently(c, 5000);
    assert.equal(((await efi.settleCarnetParcel({ id: carnet_id, parcel: 2 })) as any).code, 200);
    assert.equal(((await efi.cancelCarnetParcel({ id: carnet_id, parcel: 3 })) as any).code, 200);
    detail = await carnetOf(carnet_id);
    assert.deepEqual(
      detail.charges.map((c: any) => c.status),
      ['paid', 'settled', 'canceled'],
    );
    assert.equal(detail.status, 'finished');
    assert.equal(detail.repeats, 3);
    assert.equal(detail.value, 15000);
    const listed: any = await efi.listCharges({
      charge_type: 'carnet',
      begin_date: today(),
      end_date: today(),
      custom_id: 'carne-1',
    } as any);
    assert.deepEqual(
      listed.data.map((c: any) => [c.id, c.payment.carnet.parcel]),
      detail.charges.map((c: any) => [c.charge_id, c.parcel]),
    );
  });

  it('split_items, metadata, history, e-mails (whole carnê and one parcel), cancelCarnet and settleCarnet', async () => {
    const created: any = await efi.createCarnet({}, {
      items: [{ name: 'Curso', value: 10001, amount: 1 }],
      customer,
      expire_at: businessDayAfter(3),
      repeats: 2,
      split_items: true,
    } as any);
    const id = created.data.carnet_id;
    assert.deepEqual(
      created.data.charges.map((c: any) => c.value),
      [5001, 5000],
    );
    for (const c of created.data.charges) checkIndependently(c, c.value);
    assert.equal(((await efi.updateCarnetMetadata({ id }, { custom_id: 'carne-2' })) as any).code, 200);
    assert.equal(((await efi.createCarnetHistory({ id }, { description: 'Aluno matriculado.' })) as any).code, 200);
    assert.equal(((await efi.sendCarnetEmail({ id }, { email: 'aluno@example.com' })) as any).code, 200);
    assert.equal(((await efi.sendCarnetParcelEmail({ id, parcel: 2 }, { email: 'pai@example.com' })) as any).code, 200);
    const mail = (await api.ok('GET', '/sandbox/billing/mail')).data;
    assert.equal(mail[0].to, 'pai@example.com');
    assert.equal(mail[0].reference, `charge:${created.data.charges[1].charge_id}`);
    assert.equal(mail[1].to, 'aluno@example.com');
    for (const c of created.data.charges) assert.ok(mail[1].body.includes(c.barcode));
    assert.equal(((await efi.cancelCarnet({ id })) as any).code, 200);
    const canceled = await carnetOf(id);
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.custom_id, 'carne-2');
    assert.equal(canceled.split_items, true);
    assert.ok(canceled.history.some((h: any) => h.message === 'Aluno matriculado.'));
    const qr = await pixPay(svc.demo, { pixCopiaECola: created.data.charges[0].pix.qrcode });
    assert.equal(qr.status, 400);

    const single: any = await efi.createCarnet({}, {
      items: carnetItems,
      customer,
      expire_at: businessDayAfter(3),
      repeats: 1,
    } as any);
    assert.equal(((await efi.settleCarnet({ id: single.data.carnet_id })) as any).code, 200);
    const settled = await carnetOf(single.data.carnet_id);
    assert.equal(settled.status, 'finished');
    assert.equal(settled.charges[0].status, 'settled');
    const missing = await api.call('GET', '/v1/carnet/999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, 'carnet_not_found');
  });
});
