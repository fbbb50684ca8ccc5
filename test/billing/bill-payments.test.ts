/**
 * Paying bills through the official Efí Node SDK, unchanged (its `pagarcontas` host pointed at pixd): decoding
 * boletos and arrecadação bills (payDetailBarCode), paying them from the balance (payRequestBarCode: the hold,
 * EXECUTADO once handed to the bill's institution, then LIQUIDADO or NAO_REALIZADO (the hold returned) by the
 * sandbox's amount rules, today or on a scheduled date), reading them
 * (payDetailPayment, payListPayments) and the bill-payment webhook (payConfigWebhook, payListWebhook,
 * payDeleteWebhook) hearing every status change; a boleto of another pixd account paid on us. Every barcode
 * pixd answers is checked by an independent library (boleto-brasileiro-validator); the ledger is verified after
 * the money moved.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import validator from 'boleto-brasileiro-validator';
import { EfiPay } from '../compat/efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { brasiliaDate, fromEpochDay, nextBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import { bankBarcode, bankBarcodeToLine } from '../../src/platform/febraban.ts';
import { balanceCents, ledgerCode } from '../../src/platform/ledger/ledger.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Receiver } from '../helpers/receiver.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { billingApi, customer, items } from './helpers.ts';

// boleto-brasileiro-validator's README: an electricity bill (segment 3, modulo 10) of R$ 66.78, company 0048.
const ENERGY_LINE = '836200000005 667800481000 180975657313 001589636081';

interface Payment {
  idPagamento: string;
  status: string;
  valorPago: number;
  protocolo: string | null;
  motivoRecusa: string | null;
}
/** The family's error: the SDK reads `mensagem` (summaries, webhooks) or `descricao` (bar codes, payments). */
interface NamedError {
  nome: string;
  mensagem: string;
  descricao: string;
}

let serial = 0;

describe('paying bills through the SDK', () => {
  let svc: TestService;
  let restore: () => void;
  let receiver: Receiver;
  let efi: EfiPay;
  const today = () => brasiliaDate(svc.clock.forAccount(svc.demo.accountId).now());
  const dayAfter = (days: number) => fromEpochDay(toEpochDay(today()) + days);
  const available = () => balanceCents(svc.service.ctx.db, ledgerCode.available(svc.demo.accountId));
  /** What the demo account's bill payments hold: nothing once every one of them is LIQUIDADO or NAO_REALIZADO. */
  const held = () => balanceCents(svc.service.ctx.db, ledgerCode.bills(svc.demo.accountId));

  /** A boleto of another bank (341), a fresh one each time: a barcode is paid at most once. */
  const boleto = (amountCents: number, dueDate = dayAfter(10)) =>
    bankBarcode({ bankCode: '341', dueDate, amountCents, freeField: String(++serial).padStart(25, '7') });

  const detail = async (codBarras: string) =>
    (await efi.payDetailBarCode({ codBarras })) as unknown as Record<string, any>;
  const pay = async (codBarras: string, valor: number, dataPagamento = today()) =>
    (await efi.payRequestBarCode(
      { codBarras },
      { valor, dataPagamento, descricao: 'conta de teste' },
    )) as unknown as Payment;
  const read = async (idPagamento: string) => (await efi.payDetailPayment({ idPagamento })) as unknown as Payment;
  const refusal = async (promise: Promise<unknown>, nome: string) =>
    assert.rejects(promise, (error: unknown) => {
      const { nome: named, mensagem, descricao } = error as NamedError;
      assert.equal(named, nome, JSON.stringify(error));
      assert.equal(descricao, mensagem, JSON.stringify(error));
      return typeof mensagem === 'string' && mensagem.length > 0;
    });
  const settled = (id: string, status: string) =>
    waitFor(async () => {
      const payment = await read(id);
      return payment.status === status && payment;
    }, `payment ${id} ${status}`);
  /** The statuses the webhook heard of one payment, once it heard `count` of them. */
  const heard = async (id: string, count: number) => (await heardBodies(id, count)).map((body) => body.status);
  const heardBodies = (id: string, count: number) =>
    waitFor(async () => {
      const bodies = receiver
        .callsTo('/contas')
        .filter((c) => c.body.idPagamento === id)
        .map((c) => c.body as Payment);
      return bodies.length >= count && bodies;
    }, `${count} webhook calls of payment ${id}`);

  before(async () => {
    svc = await startTestService();
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    efi = sdkFor(svc);
    // Funds: R$ 3,000.00 paid to the demo account's key by the sandbox's fictitious payer.
    const token = await svc.demo.token();
    const funded = await svc.demo.http.request('POST', '/sandbox/pix/pay', {
      token,
      body: { chave: svc.demo.chaves[0], valor: '3000.00' },
    });
    assert.equal(funded.status, 201, funded.text);
  });
  after(async () => {
    restore?.();
    await receiver?.close();
    await svc?.close();
  });

  it('payDetailBarCode decodes a boleto by barcode or linha, an arrecadação bill, and names a bad code', async () => {
    const barcode = boleto(12_345);
    for (const code of [barcode, bankBarcodeToLine(barcode)]) {
      const bill = await detail(code);
      assert.equal(bill.tipo, 'boleto');
      assert.deepEqual(bill.banco, { codigo: 341, nome: 'Banco 341' });
      assert.equal(bill.codBarras, barcode);
      assert.equal(bill.linhaDigitavel, bankBarcodeToLine(barcode));
      assert.ok(validator.boleto(bill.codBarras, true) && validator.boleto(bill.linhaDigitavel, true));
      assert.equal(bill.datas.vencimento, dayAfter(10));
      assert.equal(bill.valores.final, 12_345);
      assert.equal(bill.beneficiario.nome, 'Beneficiário Simulado Ltda');
      assert.equal(bill.informacoesPagamento.podeSerPago, true);
    }
    const energy = await detail(ENERGY_LINE.replace(/\D/g, ''));
    assert.equal(energy.tipo, 'tributo');
    assert.equal(energy.banco, null);
    assert.equal(energy.segmento, 3);
    assert.equal(energy.identificacaoEmpresa, '0048');
    assert.equal(energy.valores.final, 6_678);
    assert.ok(validator.boleto(energy.codBarras, true) && validator.boleto(energy.linhaDigitavel, true));
    const broken = `${barcode.slice(0, 20)}${(Number(barcode[20]) + 1) % 10}${barcode.slice(21)}`;
    await refusal(detail(broken), 'codigo_barras_invalido');
    await refusal(detail('1234'), 'codigo_barras_invalido');
  });

  it('pays a boleto today from the balance: EM_PROCESSAMENTO, EXECUTADO, then LIQUIDADO, every change on the webhook', async () => {
    const saved = (await efi.payConfigWebhook({}, { url: `${receiver.url}/contas` })) as { url: string };
    assert.equal(saved.url, `${receiver.url}/contas`);
    const listed = (await efi.payListWebhook({
      dataInicio: new Date(Date.now() - 86_400_000).toISOString(),
      dataFim: new Date(Date.now() + 86_400_000).toISOString(),
    })) as unknown as { webhooks: { url: string }[] };
    assert.deepEqual(
      listed.webhooks.map((w) => w.url),
      [`${receiver.url}/contas`],
    );

    const before = await available();
    const requested = await pay(boleto(12_345), 12_345);
    assert.equal(requested.status, 'EM_PROCESSAMENTO');
    assert.equal(requested.valorPago, 12_345);
    assert.equal(await available(), before - 12_345, 'held at the request');
    const done = await settled(requested.idPagamento, 'LIQUIDADO');
    assert.match(done.protocolo!, /^[0-9A-F]{32}$/);
    const bodies = await heardBodies(requested.idPagamento, 3);
    assert.deepEqual(
      bodies.map((b) => b.status),
      ['EM_PROCESSAMENTO', 'EXECUTADO', 'LIQUIDADO'],
    );
    // Handed over, not yet settled: no protocol yet, nothing refused.
    assert.deepEqual([bodies[1].protocolo, bodies[1].motivoRecusa], [null, null]);
    assert.equal(bodies[2].protocolo, done.protocolo);
    assert.equal(await available(), before - 12_345);
    assert.equal(await held(), 0, 'the hold went to the compensation');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('the sandbox rules: above R$ 500.00 handed over then not made (the hold returned), above R$ 1,000.00 refused at once', async () => {
    const before = await available();
    const requested = await pay(boleto(60_000), 60_000);
    const failed = await settled(requested.idPagamento, 'NAO_REALIZADO');
    assert.match(failed.motivoRecusa!, /recusado/);
    assert.deepEqual(await heard(requested.idPagamento, 3), ['EM_PROCESSAMENTO', 'EXECUTADO', 'NAO_REALIZADO']);
    assert.equal(await available(), before, 'the hold returned');
    assert.equal(await held(), 0);
    await refusal(pay(boleto(100_001), 100_001), 'pagamento_recusado');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('refuses another amount, a bill paid twice, a date in the past and more than the balance', async () => {
    const code = boleto(1_000);
    await refusal(pay(code, 999), 'valor_divergente');
    await refusal(pay(code, 1_000, dayAfter(-1)), 'pagamento_invalido');
    const paid = await pay(code, 1_000);
    await refusal(pay(code, 1_000), 'pagamento_duplicado');
    await settled(paid.idPagamento, 'LIQUIDADO');
    const poor = await svc.newParty();
    const res = await poor.http.request('POST', `/v1/codBarras/${boleto(2_000)}`, {
      token: await poor.token(),
      body: { valor: 2_000, dataPagamento: today() },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.nome, 'saldo_insuficiente');
    assert.match(res.body.descricao, /saldo/i, res.text);
    // Another account's payment is not found; a path that is no payment id is no route of this family.
    const foreign = await poor.http.request('GET', `/v1/${paid.idPagamento}`, { token: await poor.token() });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.nome, 'pagamento_nao_encontrado');
    const unknown = await poor.http.request('GET', '/v1/naoexiste', { token: await poor.token() });
    assert.equal(unknown.status, 404);
    assert.notEqual(unknown.body.nome, 'pagamento_nao_encontrado');
  });

  it('a scheduled payment is AGENDADO until its date, then paid on the account clock; payListPayments sums up', async () => {
    const requested = await pay(boleto(2_500, dayAfter(5)), 2_500, dayAfter(2));
    assert.equal(requested.status, 'AGENDADO');
    svc.advance(2 * 86_400);
    await settled(requested.idPagamento, 'LIQUIDADO');
    assert.deepEqual(await heard(requested.idPagamento, 4), ['AGENDADO', 'EM_PROCESSAMENTO', 'EXECUTADO', 'LIQUIDADO']);
    const summary = (await efi.payListPayments({ dataInicio: dayAfter(-3), dataFim: today() })) as unknown as {
      solicitacoes: Record<string, number>;
      solicitacoesFalhas: number[];
    };
    assert.deepEqual(summary.solicitacoes, { total: 4, processando: 0, sucesso: 3, falha: 1, cancelada: 0 });
    assert.equal(summary.solicitacoesFalhas.length, 1);
    assert.equal(typeof summary.solicitacoesFalhas[0], 'number');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it("on us: account A's boleto paid by the demo account — A's charge paid, A credited and notified, the payer debited", async () => {
    const shop = await svc.newParty({ nome: 'Loja A Ltda' });
    const shopApi = billingApi(svc.anonymous, shop);
    const issued = await shopApi.ok('POST', '/v1/charge/one-step', {
      items,
      payment: { banking_billet: { customer, expire_at: dayAfter(10) } },
      metadata: { notification_url: `${receiver.url}/loja-a` },
    });
    const barcode: string = issued.data.barcode_digits;
    const bill = await detail(barcode);
    assert.equal(bill.beneficiario.nome, 'Loja A Ltda');
    assert.equal(bill.pagador.nome, customer.name);
    assert.equal(bill.valores.final, 11_980);
    assert.equal(bill.informacoesPagamento.podeSerPago, true);
    const shopBalance = () => balanceCents(svc.service.ctx.db, ledgerCode.available(shop.accountId));
    const [payerBefore, shopBefore] = [await available(), await shopBalance()];
    await refusal(pay(barcode, 11_979), 'valor_divergente');
    const requested = await pay(barcode, 11_980);
    await settled(requested.idPagamento, 'LIQUIDADO');
    // Paid on us in one transaction: nothing is handed to another institution, so no EXECUTADO.
    assert.deepEqual(await heard(requested.idPagamento, 2), ['EM_PROCESSAMENTO', 'LIQUIDADO']);
    assert.equal(await available(), payerBefore - 11_980, 'the payer debited');
    assert.equal(await held(), 0);
    // Boletos are compensated on the next business day of the issuer's clock: credited and paid then.
    const creditDay = nextBusinessDay(toEpochDay(today()) + 1);
    svc.advance((creditDay - toEpochDay(today())) * 86_400);
    await waitFor(
      async () => (await shopApi.ok('GET', `/v1/charge/${issued.data.charge_id}`)).data.status === 'paid',
      "A's charge paid",
    );
    assert.equal(await shopBalance(), shopBefore + 11_980, 'A credited');
    // A notified: its notification_url called, and the token's history ends with the charge paid.
    const [call] = await receiver.waitForCalls(1, '/loja-a');
    await waitFor(async () => {
      const events = (await shopApi.ok('GET', `/v1/notification/${call.body.notification}`)).data;
      return events.some((e: { status: { current: string } }) => e.status.current === 'paid');
    }, "A's notification of the charge paid");
    await refusal(pay(barcode, 11_980), 'boleto_nao_pagavel');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('payDeleteWebhook removes the address; removing it again is a named 404', async () => {
    await efi.payDeleteWebhook({}, { url: `${receiver.url}/contas` });
    await refusal(efi.payDeleteWebhook({}, { url: `${receiver.url}/contas` }), 'webhook_nao_encontrado');
  });
});
