/**
 * End to end in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core; no browser download):
 * the checkout page pays a charge with a refused card (last digit 2) and then an approved one, and the official
 * payment-token-efi library runs its sandbox flow against pixd. That library hard-codes Efí's hosts, so
 * `page.route` answers every request to them by fetching the same path and query from pixd (docs/billing.md).
 * pixd's certificate comes from its own CA: the browser context ignores HTTPS errors (tests only).
 */
// suite: serial (a headless Chromium): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { billingApi, CARDS, items, type BillingApi } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = new URL('../artifacts/', import.meta.url);
const EFI_HOSTS = /^https:\/\/cobrancas(-h)?\.api\.efipay\.com\.br\//;

let svc: TestService;
let api: BillingApi;
let browser: Browser;

before(async () => {
  svc = await startTestService();
  api = billingApi(svc.anonymous, svc.demo);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await svc.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  // payment-token-efi calls Efí's sandbox host: answer from pixd, same path and query.
  await page.route(EFI_HOSTS, async (route) => {
    const target = route.request().url().replace(EFI_HOSTS, `${svc.baseUrl}/`);
    const response = await route.fetch({ url: target });
    await route.fulfill({ response });
  });
  return page;
}

async function fillCard(page: Page, number: string) {
  await page.fill('#number', number);
  await page.waitForFunction(() => document.querySelectorAll('#installments option').length === 12);
  await page.fill('#holder', 'Gorbadoc Oldbuck');
  await page.fill('#month', '12');
  await page.fill('#year', String(new Date().getFullYear() + 2));
  await page.fill('#cvv', '123');
  await page.fill('#name', 'Gorbadoc Oldbuck');
  await page.fill('#cpf', '94271564656');
  await page.fill('#email', 'oldbuck@example.com');
}

describe('checkout page (headless Chromium)', () => {
  it('shows brand and installments; a refused card by last digit, then an approved one pays the charge', async () => {
    const created = await api.ok('POST', '/v1/charge', { items });
    const page = await newPage();
    await page.goto(created.data.checkout_url);
    await page.waitForFunction(() => document.getElementById('total')!.textContent !== '');
    await fillCard(page, '5555 6666 7777 8884');
    assert.equal(await page.textContent('#brand'), 'mastercard');
    await page.fill('#number', CARDS.security);
    await page.waitForFunction(() => document.getElementById('brand')!.textContent === 'visa');
    await page.waitForFunction(() => document.querySelectorAll('#installments option').length === 12);
    await page.selectOption('#installments', '3');
    await page.click('#submit');
    await page.waitForFunction(() => /recusado/.test(document.getElementById('result')!.textContent ?? ''));
    assert.equal(
      await page.textContent('#result'),
      'Pagamento recusado: Transaction not authorized for security reasons.',
    );

    await page.fill('#number', CARDS.approved);
    await page.waitForFunction(() => document.querySelectorAll('#installments option').length === 12);
    await page.click('#submit');
    await page.waitForFunction(() => /aprovado/.test(document.getElementById('result')!.textContent ?? ''));
    await page.screenshot({ path: new URL('checkout-approved.png', ARTIFACTS).pathname, fullPage: true });
    const detail = (await api.ok('GET', `/v1/charge/${created.data.charge_id}`)).data;
    assert.equal(detail.status, 'approved');
    assert.equal(detail.payment.credit_card.mask, 'XXXXXXXXXXXX3335');
    await page.context().close();
  });
});

describe('payment-token-efi (official library) against pixd', () => {
  it('verifyCardBrand, getInstallments and getPaymentToken in its sandbox flow; the token pays a charge', async () => {
    const page = await newPage();
    await page.goto(`${svc.baseUrl}/checkout/not-a-real-charge`);
    const require = createRequire(import.meta.url);
    await page.addScriptTag({ path: require.resolve('payment-token-efi/dist/payment-token-efi-umd.min.js') });
    const year = String(new Date().getFullYear() + 2);
    const result = await page.evaluate(
      async ({ payee, number, year }) => {
        const card = (window as any).EfiPay.CreditCard;
        const brand = await card.setCardNumber(number).verifyCardBrand();
        const installments = await card
          .setAccount(payee)
          .setEnvironment('sandbox')
          .setBrand(brand)
          .setTotal(11980)
          .getInstallments();
        const token = await card
          .setAccount(payee)
          .setEnvironment('sandbox')
          .setCreditCardData({
            brand,
            number,
            cvv: '123',
            expirationMonth: '12',
            expirationYear: year,
            holderName: 'Gorbadoc Oldbuck',
            holderDocument: '94271564656',
            reuse: false,
          })
          .getPaymentToken();
        return { brand, installments, token };
      },
      { payee: svc.demo.payeeCode, number: CARDS.approved, year },
    );
    assert.equal(result.brand, 'visa');
    assert.equal(result.installments.installments.length, 12);
    assert.equal(result.token.card_mask, 'XXXXXXXXXXXX3335');
    const paid = await api.ok('POST', '/v1/charge/one-step', {
      items,
      payment: {
        credit_card: {
          customer: { name: 'Gorbadoc Oldbuck', cpf: '94271564656', email: 'a@b.com' },
          payment_token: result.token.payment_token,
        },
      },
    });
    assert.equal(paid.data.status, 'approved');
    await page.context().close();
  });
});
