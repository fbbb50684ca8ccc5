/**
 * The automatic-payment journey end to end, as an integrator and a payer live it: the official SDK (unchanged,
 * pointed at pixd) configures the application and enrols a payer; headless Chromium (Debian's
 * /usr/bin/chromium through playwright-core, no download) opens `redirectURI`, logs in and approves, and lands
 * on a local page standing for the application's `redirectURL` with the outcome in the query; the enrolment
 * reads `autorizado`, a payment is created, the account's clock is moved to its date, it settles `aceito`
 * through the payment engine (balance and GET /v2/pix agree) and the callbacks reach a local mutual-TLS
 * receiver. Another payer declines; another link expires unused. The same pages serve an Open Finance Pix
 * payment (docs/open-finance-pix.md): a recurring one's page lists its dates, an immediate one is approved and
 * the browser returns with `identificadorPagamento` (its money is test/openfinance/pix.test.ts's). Screenshots
 * of the pages (desktop and phone widths) go to test/artifacts/ (docs/images/ holds the committed ones).
 */
// suite: serial (a headless Chromium): run alone, after the concurrent files; see scripts/test.sh.
// suite: database-independent (its subject is the pages in a browser; the storage under them is tested on both databases by the API and page tests)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { LIMITS } from '../../src/platform/limits.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { Receiver } from '../helpers/receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import { waitFor } from '../helpers/wait.ts';
import type { EfiPay } from '../compat/efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { PAYER_CPF, RedirectPage, dateIn, demoAccount, enrolmentBody } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = new URL('../artifacts/', import.meta.url);
const PHONE = { width: 390, height: 844 };

describe('automatic payments: SDK enrolment, consent in a browser, payment, callbacks', () => {
  let svc: TestService;
  let receiver: Receiver;
  let redirect: RedirectPage;
  let restore: () => void;
  let browser: Browser;
  let sandbox: Call;
  let account: { conta: string; documento: string; nome: string };
  let participante: string;

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    redirect = await RedirectPage.start();
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    sandbox = callerWithFreshToken(svc.demo);
    account = await demoAccount(svc);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const efi = sdkFor(svc);
    const config = await efi.ofConfigUpdate({}, { redirectURL: redirect.url, webhookURL: `${receiver.url}/of` });
    assert.equal(config.webhookSecurity.type, 'mtls', 'mutual TLS by default');
    const { participantes } = await efi.ofListParticipants({});
    assert.ok(participantes.length >= 3);
    participante = participantes[0].identificador;
  });
  after(async () => {
    await browser?.close();
    restore?.();
    await redirect?.close();
    await receiver?.close();
    await svc?.close();
  });

  async function openConsent(redirectURI: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
    const page = await context.newPage();
    // Nothing outside pixd and the application's page may load.
    await page.route(/.*/, (route) => {
      const url = route.request().url();
      const allowed = [svc.baseUrl, svc.service.ctx.pages.url, redirect.url];
      return allowed.some((origin) => url.startsWith(origin)) ? route.continue() : route.abort();
    });
    await page.goto(redirectURI);
    return page;
  }

  async function login(page: Page, decision: 'Autorizar' | 'Recusar', senha = '123456') {
    await page.fill('#login', PAYER_CPF);
    await page.fill('#senha', senha);
    await page.click(`button:has-text("${decision}")`);
  }

  /** The application's read of one enrolment: the SDK lists by period, today's narrowed to its identifier. */
  const enrolment = (efi: EfiPay, identificadorAdesao: string) =>
    efi.ofListAutomaticEnrollment({ inicio: dateIn(svc, 0), fim: dateIn(svc, 0), identificadorAdesao } as never);

  const callbackOf = (match: (body: Record<string, unknown>) => boolean) =>
    waitFor(async () => receiver.callsTo('/of').find((c) => match(c.body as Record<string, unknown>)), 'the callback');

  it('enrol → approve in the browser → redirect with query → autorizado → payment → date reached → aceito → callbacks', async () => {
    const efi = sdkFor(svc);
    const body = enrolmentBody(svc, account, participante, { primeiroPagamento: undefined });
    const created = await efi.ofCreateAutomaticEnrollment({}, body);
    assert.match(created.identificadorAdesao, /^urn:pixd:[0-9a-f-]{36}$/);
    // On the pages listener: the payer's browser is asked for no client certificate there.
    assert.ok(created.redirectURI.startsWith(`${svc.service.ctx.pages.url}/`), created.redirectURI);

    const page = await openConsent(created.redirectURI);
    const text = await page.textContent('main');
    assert.match(text!, /Banco Aurora/, 'the payer institution named by idParticipante');
    assert.match(text!, new RegExp(account.nome), 'who is asking');
    assert.match(text!, /Entre R\$ 1,00 e R\$ 50,00 por cobrança/, 'the amounts');
    assert.match(text!, /uma vez por mês/, 'the schedule');
    assert.equal(await page.textContent('#login-hint'), PAYER_CPF, 'the sandbox login is shown');
    await page.screenshot({ path: new URL('of-consent-desktop.png', ARTIFACTS).pathname, fullPage: true });
    const phone = await openConsent(created.redirectURI, PHONE);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, 'readable on a phone: no horizontal scrolling');
    await phone.screenshot({ path: new URL('of-consent-phone.png', ARTIFACTS).pathname, fullPage: true });
    await phone.context().close();

    await login(page, 'Autorizar');
    await page.waitForURL((url) => url.href.startsWith(redirect.url));
    const query = new URL(page.url()).searchParams;
    assert.equal(query.get('identificadorAdesao'), created.identificadorAdesao);
    assert.equal(query.get('status'), 'autorizado');
    await page.context().close();

    const read = await enrolment(efi, created.identificadorAdesao);
    assert.equal(read.adesoes.length, 1);
    assert.equal(read.adesoes[0].status, 'autorizado');
    await callbackOf((b) => b.tipo === 'adesao' && b.status === 'autorizado');

    const saldo = Number((await efi.getAccountBalance()).saldo);
    const data = dateIn(svc, 1);
    const payment = await efi.ofCreateAutomaticPixPayment(
      {},
      {
        identificadorAdesao: created.identificadorAdesao,
        pagamento: { valor: '9.90', data, infoPagador: 'Mensalidade', codigoCidadeIBGE: '3550308' },
      },
    );
    assert.equal(payment.status, 'pendente');
    assert.match(payment.endToEndId, /^E99999011/, "the payer institution's ISPB");

    const now = Date.parse((await sandbox('GET', '/sandbox/clock')).body.agora);
    const moved = await sandbox('POST', '/sandbox/clock/advance', {
      segundos: Math.ceil((Date.parse(`${data}T03:00:00Z`) - now) / 1000) + 60,
    });
    assert.equal(moved.status, 200, moved.text);
    const later = sdkFor(svc);
    const settled = await waitFor(async () => {
      const r = await later.ofListAutomaticPixPayment({ identificadorAdesao: created.identificadorAdesao });
      return r.pagamentos[0]?.status === 'aceito' && r;
    }, 'aceito on the payment date');
    assert.equal(settled.status, 'autorizado');
    assert.equal(settled.pagamentos[0].valor, '9.90');
    assert.equal(Number((await later.getAccountBalance()).saldo), Math.round((saldo + 9.9) * 100) / 100);
    const pix = await later.pixDetailReceived({ e2eId: payment.endToEndId });
    assert.equal(pix.valor, '9.90');
    const callback = await callbackOf(
      (b) => b.tipo === 'pagamento' && b.endToEndId === payment.endToEndId && b.status === 'aceito',
    );
    assert.equal(callback.clientCertificate, true, 'delivered over mutual TLS');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('a payer who declines: the application gets rejeitado with the reason; a wrong password is refused first', async () => {
    const efi = sdkFor(svc);
    const created = await efi.ofCreateAutomaticEnrollment({}, enrolmentBody(svc, account, participante));
    const page = await openConsent(created.redirectURI);
    await login(page, 'Autorizar', '000000');
    assert.match((await page.textContent('[role=alert]'))!, /incorretos/);
    await login(page, 'Recusar');
    await page.waitForURL((url) => url.href.startsWith(redirect.url));
    const query = new URL(page.url()).searchParams;
    assert.equal(query.get('status'), 'rejeitado');
    assert.ok(query.get('motivo'));
    // The link is used: opening it again shows the outcome, with no form.
    await page.goto(created.redirectURI);
    assert.match((await page.textContent('#status'))!, /não foi autorizado/);
    assert.equal(await page.locator('form').count(), 0);
    await page.screenshot({ path: new URL('of-consent-closed.png', ARTIFACTS).pathname, fullPage: true });
    await page.context().close();
    const read = await enrolment(efi, created.identificadorAdesao);
    assert.equal(read.adesoes[0].status, 'rejeitado');
    await assert.rejects(
      efi.ofCreateAutomaticPixPayment(
        {},
        { identificadorAdesao: created.identificadorAdesao, pagamento: { valor: '5.00', data: dateIn(svc, 1) } },
      ),
      (error: { nome: string; mensagem: string }) =>
        error.nome === 'adesao_nao_autorizada' && /rejeitado/.test(error.mensagem),
    );
  });

  it('an unused link expires after the named limit on the service clock: rejeitado with motivo', async () => {
    const efi = sdkFor(svc);
    const created = await efi.ofCreateAutomaticEnrollment({}, enrolmentBody(svc, account, participante));
    const moved = await sandbox('POST', '/sandbox/clock/advance', { segundos: LIMITS.ofConsentLinkTtlSeconds + 1 });
    assert.equal(moved.status, 200, moved.text);
    const callback = await callbackOf(
      (b) => b.identificadorAdesao === created.identificadorAdesao && b.status === 'rejeitado',
    );
    assert.match((callback.body as { motivo: string }).motivo, /expirou/);
    const page = await openConsent(created.redirectURI);
    assert.match((await page.textContent('main'))!, /expirou/);
    await page.context().close();
  });

  it('Open Finance Pix: the same pages show a recurrence’s dates; an immediate payment approved in the browser is paid', async () => {
    const efi = sdkFor(svc);
    const pagador = { idParticipante: participante, cpf: PAYER_CPF };
    const recurring = await efi.ofStartRecurrencyPixPayment(
      {},
      {
        pagador,
        pagamento: {
          valor: '25.00',
          recorrencia: {
            tipo: 'mensal',
            dataInicio: dateIn(svc, 1),
            quantidade: 3,
            diaDoMes: 10,
            descricao: 'Mensalidade',
          },
        },
      },
    );
    const shown = await openConsent(recurring.redirectURI, PHONE);
    const text = (await shown.textContent('main'))!;
    assert.match(text, /Pix Recorrente/);
    assert.match(text, /R\$ 25,00 em cada pagamento/);
    assert.match(text, /3 pagamentos: \d{2}\/\d{2}\/\d{4}, /, 'the dates, one by one');
    assert.ok((await shown.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 0);
    await shown.screenshot({ path: new URL('of-pix-consent-phone.png', ARTIFACTS).pathname, fullPage: true });
    await shown.context().close();

    const started = await efi.ofStartPixPayment({}, { pagador, pagamento: { valor: '7.50', infoPagador: 'Pedido 7' } });
    const page = await openConsent(started.redirectURI);
    assert.match((await page.textContent('main'))!, /Pagamento Pix[\s\S]*R\$ 7,50[\s\S]*Agora/);
    await page.screenshot({ path: new URL('of-pix-consent-desktop.png', ARTIFACTS).pathname, fullPage: true });
    await login(page, 'Autorizar');
    await page.waitForURL((url) => url.href.startsWith(redirect.url));
    assert.equal(new URL(page.url()).searchParams.get('identificadorPagamento'), started.identificadorPagamento);
    await page.context().close();
    const today = dateIn(svc, 0);
    await waitFor(async () => {
      const list = await efi.ofListPixPayment({
        inicio: today,
        fim: today,
        identificador: started.identificadorPagamento,
      });
      return list.pagamentos[0]?.status === 'aceito';
    }, 'the payment paid');
  });
});
