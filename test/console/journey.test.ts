/**
 * The console's journey in headless Chromium, on the pages listener: straight in to the sandbox's demo
 * account, a charge created through the API appears live, the sandbox tool pays it, the charge shows
 * CONCLUIDA and its webhook delivery, a replay reaches the local receiver as a second attempt; the Pix,
 * account (report download) and webhooks pages; the sandbox tools open an infraction and confirm a card
 * charge. axe-core checks each page (no serious or critical violations).
 */
// suite: serial (a headless Chromium): run alone, after the concurrent files; see scripts/test.sh.
// suite: database-independent (its subject is the pages in a browser; the storage under them is tested on both databases by the API and page tests)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext } from 'playwright-core';
import type { TestService } from '../helpers/service.ts';
import { webhookApi, type Receiver, type WebhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { callerWithFreshToken } from '../helpers/time-travel.ts';
import { configBody, newBeneficiary } from '../pix/split-fixtures.ts';
import { recBody } from '../pix/rec-fixtures.ts';
import { brasiliaDate, fromEpochDay, isBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import { billingApi, CARDS, cardPayment, customer, items, paymentToken } from '../billing/helpers.ts';
import {
  assertAccessible,
  consoleUrl,
  createCob,
  demoSignIn,
  openContext,
  shoot,
  startRig,
  stopRig,
  type ConsoleRig,
} from './helpers.ts';

let rig: ConsoleRig;
let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let console_: string;
let demoApi: WebhookApi;

before(async () => {
  rig = await startRig();
  ({ svc, browser, receiver } = rig);
  console_ = consoleUrl(svc);
  demoApi = webhookApi(svc.demo);
});
after(async () => {
  rig.svc = svc;
  await stopRig(rig);
});

const newContext = () => openContext(browser);
const signInDemo = (context: BrowserContext, photograph = false) => demoSignIn(context, console_, photograph);

describe('web console journey (headless Chromium)', () => {
  it('journey: live charge, sandbox payment, CONCLUIDA, webhook delivery, replay seen as a second attempt', async () => {
    await demoApi.registerPix(receiver.url);
    const context = await newContext();
    const page = await signInDemo(context, true);
    const [cookie] = (await context.cookies()).filter((c) => c.name === 'pixd_console');
    assert.deepEqual([cookie.httpOnly, cookie.secure, cookie.sameSite], [true, true, 'Strict']);
    await assertAccessible(page, 'overview');

    await page.goto(`${console_}/charges`);
    await page.waitForSelector('#live[data-state="on"]');
    // The page is not reloaded: a marker set now survives the live update.
    await page.evaluate(() => ((window as any).stillHere = true));
    const txid = await createCob(svc.demo, '1234.56');
    const row = page.locator(`a[href="/console/charges/cob/${txid}"]`);
    await row.waitFor({ timeout: 15_000 });
    assert.equal(await page.evaluate(() => (window as any).stillHere), true);
    const rowText = await page.locator('tbody tr', { has: row }).innerText();
    assert.match(rowText, /R\$ 1\.234,56/);
    assert.match(rowText, /ATIVA/);
    // Dates in the browser's zone, UTC on hover.
    assert.match((await page.locator('tbody time').first().getAttribute('title'))!, /UTC$/);
    await assertAccessible(page, 'charges');
    await shoot(page, 'charges');

    await row.click();
    await page.waitForSelector('img[alt^="QR Code"]');
    assert.match(await page.inputValue('#brcode'), /^000201/);
    await assertAccessible(page, 'charge');

    await page.goto(`${console_}/sandbox`);
    await assertAccessible(page, 'sandbox tools');
    await shoot(page, 'sandbox');
    await page.fill('#target', txid);
    await page.click('button:has-text("Pagar")');
    await page.waitForSelector('.flash.ok');
    assert.match(await page.innerText('.flash'), /Pago: 1234\.56/);

    // The list's Pagador is who paid (the sandbox payer), not the debtor the charge names; at phone width the
    // txid stays on one line and the amount whole (the table scrolls sideways instead).
    await page.goto(`${console_}/charges`);
    const paidRow = page.locator('tbody tr', { has: page.locator(`a[href="/console/charges/cob/${txid}"]`) });
    const payerCell = (await paidRow.locator('td').nth(4).innerText()).trim();
    assert.ok(payerCell && !payerCell.includes('Fulano de Tal'), `Pagador: ${payerCell}`);
    await page.setViewportSize({ width: 390, height: 844 });
    const lines = await paidRow.locator('code').evaluate((code) => {
      const height = code.getBoundingClientRect().height;
      return Math.round(height / Number.parseFloat(getComputedStyle(code).lineHeight));
    });
    assert.equal(lines, 1, 'the txid on one line');
    const amount = await paidRow.locator('td.num').evaluate((td) => td.scrollWidth <= td.clientWidth);
    assert.ok(amount, 'the amount not cut');
    await page.setViewportSize({ width: 1280, height: 860 });

    await page.goto(`${console_}/charges/cob/${txid}`);
    assert.match(await page.innerText('#live-region'), /CONCLUIDA/);
    await receiver.waitForCalls(1);
    // The delivery and its attempt appear live (the page keeps its event stream).
    await page.waitForSelector('.deliveries .badge.ok', { timeout: 15_000 });
    assert.equal(await page.locator('tr.attempt').count(), 1);
    // The event the delivery carried, folded under the delivery.
    assert.match((await page.locator('.deliveries details pre').first().textContent())!, /"endToEndId"/);
    // The attempt's body sent and the receiver's answer (`{}`), folded under the attempts.
    await page.click('details.bodies summary');
    const firstBodies = (await page.locator('details.bodies').textContent())!;
    assert.match(firstBodies, /Enviado \(\d+ bytes\)[\s\S]*"endToEndId"[\s\S]*Resposta \(2 bytes\)\s*\{\}/);
    await shoot(page, 'charge');

    // The replay meets a receiver that refuses, saying why at length, in markup: kept cut, shown as text.
    receiver.behaviour = { status: 500, body: `<b id="injected">recusado</b>${'x'.repeat(3000)}` };
    const callsBefore = receiver.calls.length;
    await page.click('button:has-text("Reenviar")');
    await page.waitForSelector('.flash');
    assert.match(await page.innerText('.flash'), /Reenvio de/);
    await waitFor(async () => receiver.calls.length > callsBefore, 'the replayed webhook at the receiver');
    receiver.behaviour = { status: 200 };
    await page.waitForFunction(() => document.querySelectorAll('tr.attempt').length === 2, undefined, {
      timeout: 15_000,
    });
    assert.match(await page.innerText('.deliveries'), /webhook\.pix\.resend/);
    const replayed = page.locator('.deliveries > li', { hasText: 'webhook.pix.resend' });
    assert.match(await replayed.locator('tr.attempt').innerText(), /500/);
    const replayBodies = (await replayed.locator('details.bodies').textContent())!;
    assert.match(replayBodies, /"endToEndId"/);
    assert.match(replayBodies, /Resposta \(primeiros 2048 de 3029 bytes\)\s*<b id="injected">recusado<\/b>x{2019}\s*$/);
    assert.equal(await page.locator('#injected').count(), 0);

    await page.goto(`${console_}/pix`);
    assert.match(await page.innerText('#received + *'), /R\$ 1\.234,56/);
    await assertAccessible(page, 'pix');
    await shoot(page, 'pix');
    // The overview's charts: 24 hours and 30 days, each bar a sum of its bucket; this Pix is the only one.
    await page.goto(console_);
    assert.deepEqual(await page.locator('figure.chart figcaption').allInnerTexts(), [
      'Por hora, últimas 24 h: R$ 1.234,56',
      'Por dia, últimos 30 dias: R$ 1.234,56',
    ]);
    assert.deepEqual(
      await page.locator('figure.chart').evaluateAll((charts) => charts.map((c) => c.querySelectorAll('rect').length)),
      [24, 30],
    );
    const dayBars = await page.locator('figure.chart').nth(1).locator('rect title').allTextContents();
    assert.equal(dayBars.filter((t) => t.endsWith('UTC: R$ 1.234,56')).length, 1, dayBars.join('\n'));

    // A reconciliation report requested through the API downloads from the account page.
    const dataMovimento = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const report = await demoApi.call('POST', '/v2/gn/relatorios/extrato-conciliacao', {
      dataMovimento,
      tipoRegistros: { pixRecebido: true },
    });
    assert.equal(report.status, 201, report.text);
    const file = await waitFor(async () => {
      const res = await demoApi.call('GET', `/v2/gn/relatorios/${report.body.id}`);
      return res.status === 200 && res;
    }, 'report file');
    await page.goto(`${console_}/account`);
    assert.match(await page.innerText('#keys + *'), new RegExp(svc.demo.chaves[0]));
    await assertAccessible(page, 'account');
    await shoot(page, 'account');
    const download = await page.request.get(
      await page.getAttribute('a[download]', 'href').then((h) => `${svc.service.ctx.pages.url}${h}`),
    );
    assert.equal(download.status(), 200);
    assert.match(download.headers()['content-type'], /^text\/csv/);
    assert.equal(await download.text(), file.text);

    await page.goto(`${console_}/webhooks`);
    assert.match(await page.innerText('#live-region'), new RegExp(receiver.url.replace(/[.]/g, '\\.')));
    await assertAccessible(page, 'webhooks');
    await shoot(page, 'webhooks');
    await page.goto(console_);
    assert.match(await page.innerText('.tiles'), /R\$ 1\.234,56/);
    await shoot(page, 'overview');
    await context.close();
  });

  it('sandbox tools: opens an infraction on a received Pix and confirms an approved card charge', async () => {
    const paid = await demoApi.payNewCharge('15.00');
    const billing = billingApi(svc.anonymous, svc.demo);
    const charge = await billing.ok('POST', '/v1/charge', { items });
    const chargeId = charge.data.charge_id as number;
    await billing.ok('PUT', `/v1/charge/${chargeId}/metadata`, { notification_url: `${receiver.url}/billing` });
    const token = await paymentToken(svc.anonymous, svc.demo.payeeCode, CARDS.approved);
    await billing.ok('POST', `/v1/charge/${chargeId}/pay`, cardPayment(token));
    const statusOf = async () => (await billing.ok('GET', `/v1/charge/${chargeId}`)).data.status as string;
    await waitFor(async () => (await statusOf()) === 'approved', 'card charge approved');

    const context = await newContext();
    const page = await signInDemo(context);
    await page.goto(`${console_}/sandbox`);
    await page.fill('#e2e', paid.endToEndId);
    await page.click('button:has-text("Abrir infração")');
    await page.waitForSelector('.flash');
    assert.match(await page.innerText('.flash'), /Infração .* aberta; 15\.00 bloqueado/);
    await page.fill('input[name="chargeId"]', String(chargeId));
    await page.click('button:has-text("Confirmar pagamento")');
    await page.waitForSelector('.flash');
    assert.match(await page.innerText('.flash'), new RegExp(`Cobrança de cartão ${chargeId} paga`));
    assert.equal(await statusOf(), 'paid');
    // A second confirmation is refused with the service's reason, not an error page.
    await page.fill('input[name="chargeId"]', String(chargeId));
    await page.click('button:has-text("Confirmar pagamento")');
    await page.waitForSelector('.flash.bad');
    await page.goto(`${console_}/pix`);
    assert.match(await page.innerText('#med + *'), new RegExp(paid.endToEndId));

    // The card charge in its tab, and its page with the notifications sent to its URL.
    await page.goto(`${console_}/charges?kind=cartao`);
    assert.match(
      await page.locator('tbody tr', { has: page.locator(`a[href$="/cartao/${chargeId}"]`) }).innerText(),
      /paid/,
    );
    await page.goto(`${console_}/charges/cartao/${chargeId}`);
    assert.match(await page.innerText('#summary + dl'), /R\$ 119,80/);
    // Billing notifications stay pending until the receiver queries the token (docs/billing.md): the attempt shows.
    await page.waitForSelector('#notif + * tr.attempt', { timeout: 15_000 });
    assert.match(await page.innerText('#notif + *'), /billing\.notification[\s\S]*\/billing\s+200/);
    await assertAccessible(page, 'card charge');
    await shoot(page, 'card');
    assert.equal((await page.goto(`${console_}/charges/cartao/999999999`))!.status(), 404);
    assert.equal((await page.goto(`${console_}/charges/cobr/naoexiste0000000000000000000`))!.status(), 404);
    assert.equal((await page.goto(`${console_}/charges/outro/x`))!.status(), 404);
    await context.close();
  });
  it('a boleto: its row, its page with barcode, PDF and Pix QR, paid from the payer tool, its e-mail in the mailbox', async () => {
    const billing = billingApi(svc.anonymous, svc.demo);
    const expireAt = fromEpochDay(toEpochDay(brasiliaDate(new Date())) + 10);
    const issued = await billing.ok('POST', '/v1/charge/one-step', {
      items,
      payment: { banking_billet: { customer, expire_at: expireAt } },
    });
    const chargeId = issued.data.charge_id as number;
    await billing.ok('POST', `/v1/charge/${chargeId}/billet/resend`, { email: 'cliente@example.com' });
    const context = await newContext();
    const page = await signInDemo(context);
    await page.goto(`${console_}/charges?kind=cartao`);
    assert.match(
      await page.locator('tbody tr', { has: page.locator(`a[href$="/cartao/${chargeId}"]`) }).innerText(),
      /boleto\s+waiting/,
    );
    await page.goto(`${console_}/charges/cartao/${chargeId}`);
    const section = await page.innerText('#boleto + dl');
    assert.ok(section.includes(issued.data.barcode) && section.includes(issued.data.barcode_digits));
    assert.equal(await page.locator('#boleto + dl img[alt="QR Code Pix do boleto"]').count(), 1);
    assert.equal(await page.locator(`#boleto + dl a[href="${issued.data.pdf.charge}"]`).count(), 1);
    await assertAccessible(page, 'boleto');
    await page.goto(`${console_}/sandbox`);
    assert.match(await page.innerText('#mail + *'), /cliente@example\.com/);
    await page.fill('#target', issued.data.barcode);
    await page.click('button:has-text("Pagar")');
    await page.waitForSelector('.flash');
    assert.match(await page.innerText('.flash'), /Boleto pago: R\$ 119\.80/);
    await context.close();
  });

  it('a split charge shows its configuration and how the payment was divided', async () => {
    const beneficiary = await newBeneficiary(svc, { nome: 'Parceiro Ltda' });
    const config = await demoApi.call(
      'POST',
      '/v2/gn/split/config',
      configBody('porcentagem', '60.00', [[beneficiary, '40.00']]),
    );
    assert.equal(config.status, 201, config.text);
    const txid = await createCob(svc.demo, '100.00');
    const linked = await demoApi.call('PUT', `/v2/gn/split/cob/${txid}/vinculo/${config.body.id}`);
    assert.equal(linked.status, 204, linked.text);
    assert.equal((await demoApi.call('POST', '/sandbox/pix/pay', { txid })).status, 201);
    const context = await newContext();
    const page = await signInDemo(context);
    await page.goto(`${console_}/charges/cob/${txid}`);
    assert.match(await page.innerText('#summary + dl'), new RegExp(`configuração ${config.body.id} \\(revisão 0\\)`));
    assert.match(
      await page.innerText('#pix-title + *'),
      new RegExp(
        `Split: R\\$ 60,00 para Pixd Demo Ltda \\(conta \\d+\\); R\\$ 40,00 para Parceiro Ltda \\(conta ${beneficiary.conta}\\)`,
      ),
    );
    await context.close();
  });
  it('plans, a subscription with its charges and a payment link appear in their tabs', async () => {
    const api = billingApi(svc.anonymous, svc.demo);
    const plan = (await api.ok('POST', '/v1/plan', { name: 'Plano console', interval: 1, repeats: 6 })).data;
    const token = await paymentToken(svc.anonymous, svc.demo.payeeCode, CARDS.approved);
    const sub = (
      await api.ok('POST', `/v1/plan/${plan.plan_id}/subscription/one-step`, { items, ...cardPayment(token) })
    ).data;
    const link = (
      await api.ok('POST', '/v1/charge/one-step/link', {
        items,
        settings: { expire_at: brasiliaDate(new Date()), request_delivery_address: false, payment_method: 'all' },
      })
    ).data;
    const context = await newContext();
    const page = await signInDemo(context);
    await page.goto(`${console_}/charges?kind=assinatura`);
    assert.match(await page.innerText('#plans + *'), /Plano console[\s\S]*6/);
    await assertAccessible(page, 'subscriptions list');
    await page.click(`a[href="/console/charges/assinatura/${sub.subscription_id}"]`);
    assert.match(await page.innerText('#summary + dl'), /Plano console/);
    assert.match(await page.innerText('#renewals + *'), new RegExp(`1\\s+${sub.charge.id}\\s+approved`));
    await assertAccessible(page, 'subscription page');
    await page.goto(`${console_}/charges?kind=link`);
    assert.match(await page.innerText('tbody'), new RegExp(`${link.charge_id}\\s+link`));
    await assertAccessible(page, 'links list');
    await context.close();
  });

  it('a recurring charge (cobr) appears in its tab and opens with its history', async () => {
    const today = brasiliaDate(new Date());
    const rec = await demoApi.call(
      'POST',
      '/v2/rec',
      // Up to 10.00 the sandbox's payer pays; above, it refuses (AM02).
      recBody({ calendario: { dataInicial: today, periodicidade: 'SEMANAL' }, valor: { valorRec: '10.00' } }),
    );
    assert.equal(rec.status, 201, rec.text);
    assert.equal((await demoApi.call('POST', `/sandbox/rec/${rec.body.idRec}/aprovar`)).status, 200);
    let due = toEpochDay(today) + 4;
    while (!isBusinessDay(due)) due++;
    const { rows } = await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [
      svc.demo.accountId,
    ]);
    const txid = 'ConsoleCobr000000000000000001';
    // The account's cobr webhook at the local receiver: the charge's page lists its deliveries.
    const cobrHook = await demoApi.call('PUT', '/v2/webhookcobr', { webhookUrl: receiver.url });
    assert.equal(cobrHook.status, 201, cobrHook.text);
    const cobr = await demoApi.call('PUT', `/v2/cobr/${txid}`, {
      idRec: rec.body.idRec,
      calendario: { dataDeVencimento: fromEpochDay(due) },
      valor: { original: '10.00' },
      ajusteDiaUtil: false,
      recebedor: { conta: rows[0].conta, tipoConta: 'PAGAMENTO', agencia: '0001' },
      devedor: { cpf: '45164632481', nome: 'Fulano de Tal' },
    });
    assert.equal(cobr.status, 201, cobr.text);
    const context = await newContext();
    const page = await signInDemo(context);
    await page.goto(`${console_}/charges?kind=cobr`);
    const row = page.locator('tbody tr', { has: page.locator(`a[href="/console/charges/cobr/${txid}"]`) });
    assert.match(await row.innerText(), /R\$ 10,00/);
    await assertAccessible(page, 'cobr list');
    // Searched through the API's own filters: by recurrence and debtor it is there; by another status it is not.
    await page.goto(`${console_}/charges?kind=cobr&idRec=${rec.body.idRec}&doc=451.646.324-81`);
    assert.equal(await page.locator(`a[href="/console/charges/cobr/${txid}"]`).count(), 1);
    await page.goto(`${console_}/charges?kind=cobr&status=CANCELADA`);
    assert.match(await page.innerText('.empty'), /Nenhuma cobrança recorrente corresponde/);
    // By txid (the API's list has no such filter): that one only.
    await page.goto(`${console_}/charges?kind=cobr&txid=${txid}`);
    assert.deepEqual(await page.locator('tbody a').allInnerTexts(), [txid]);
    await page.goto(`${console_}/charges?kind=cobr&txid=ConsoleCobr000000000000000099`);
    assert.match(await page.innerText('.empty'), /Nenhuma cobrança recorrente corresponde/);
    // Keyset pages: from a cursor after it, the charge is there; from one before it, nothing older is.
    await page.goto(`${console_}/charges?kind=cobr&before=2999-01-01T00:00:00.000Z_1`);
    assert.equal(await page.locator(`a[href="/console/charges/cobr/${txid}"]`).count(), 1);
    assert.equal(await page.locator('.pager a:has-text("Mais recentes")').count(), 1);
    await page.goto(`${console_}/charges?kind=cobr&before=2000-01-01T00:00:00.000Z_1`);
    assert.match(await page.innerText('.empty'), /Nenhuma cobrança recorrente corresponde/);
    await page.goto(`${console_}/charges?kind=cobr`);
    await page.click(`a[href="/console/charges/cobr/${txid}"]`);
    assert.match(await page.innerText('#summary + dl'), new RegExp(rec.body.idRec));
    assert.match(await page.innerText('#history + ol'), /CRIADA|ATIVA/);
    assert.match(await page.innerText('#pix-title + *'), /Nenhum Pix recebido/);
    // Its creation went to the cobr webhook: listed on the page, with the event it carried and the 200.
    await waitFor(
      async () =>
        (await demoApi.deliveries('webhook.cobr')).some((d) => d.assunto === txid && d.situacao === 'entregue'),
      'the cobr creation delivered',
    );
    await page.reload();
    const delivery = page.locator('#wh-title + .deliveries > li', { hasText: 'webhook.cobr' }).first();
    assert.match(await delivery.innerText(), new RegExp(`${txid}[\\s\\S]*200`));

    // Settled on its due date (the account's clock moved there; this is the file's last test, so no other sees
    // it): the attempt is a table row, PAGA, and its Pix a card with the amount in BRL, as on a cob's page.
    const call = callerWithFreshToken(svc.demo);
    // Acknowledged first (ATIVA), as the payer's PSP would have: an attempt due on a CRIADA charge is dropped.
    await waitFor(async () => (await call('GET', `/v2/cobr/${txid}`)).body.status === 'ATIVA', 'cobr ATIVA');
    const nowMs = Date.parse((await call('GET', '/sandbox/clock')).body.agora);
    const dueDate = fromEpochDay(due);
    const moved = await call('POST', '/sandbox/clock/advance', {
      segundos: Math.ceil((Date.parse(`${dueDate}T04:00:00Z`) - nowMs) / 1000),
    });
    assert.equal(moved.status, 200, moved.text);
    const paid = await waitFor(async () => {
      const r = await call('GET', `/v2/cobr/${txid}`);
      return r.body.status !== 'ATIVA' && r.body;
    }, 'cobr settled on its due date');
    assert.equal(paid.status, 'CONCLUIDA', JSON.stringify(paid));
    // Its Pix refunded in part: the page reads the Pix through GET /v2/pix/:e2eid's service, refunds included.
    const refund = await call('PUT', `/v2/pix/${paid.pix[0].endToEndId}/devolucao/consoleCobr1`, { valor: '1.50' });
    assert.equal(refund.status, 201, refund.text);
    await page.goto(`${console_}/charges/cobr/${txid}`);
    const attempt = await page.innerText('#attempts + .scroll tbody tr');
    assert.match(attempt, new RegExp(`^${dueDate}\\s+agendada AGND\\s+PAGA\\s+${paid.tentativas[0].endToEndId}`));
    assert.match(attempt, /PAGA \d{2}\/\d{2}\/\d{4}/);
    // No raw JSON for the attempts and the Pix (the deliveries below show their event's body, as on a cob's page).
    assert.equal(await page.locator('#attempts + .scroll pre, #pix-title + .cards pre').count(), 0);
    const pix = await page.innerText('#pix-title + .cards');
    assert.match(pix, /R\$ 10,00 em/);
    assert.match(pix, new RegExp(`${paid.pix[0].endToEndId} · \\S`));
    assert.match(pix, /Devoluções:\s+R\$ 1,50 (EM_PROCESSAMENTO|DEVOLVIDO)/);
    assert.match((await page.locator('#pix-title + .cards time').first().getAttribute('title'))!, /UTC$/);
    await assertAccessible(page, 'cobr charge, settled');
    await shoot(page, 'cobr');
    await context.close();
  });
});
