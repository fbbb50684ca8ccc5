/**
 * End to end in headless Chromium (test/helpers/browser.ts): the checkout page a shopper opens, and the official
 * payment-token-efi library running its sandbox flow against pixd. That library hard-codes Efí's hosts, so
 * `page.route` answers every request to them by fetching the same path and query from pixd (docs/billing.md).
 * The checkout: merchant, summary and the sandbox banner; Portuguese messages for invalid fields and server
 * errors (never a property path); the pay button disabled while paying; a refusal by last digit, then an
 * approval whose receipt replaces the form, on reload too, and after settlement; a friendly 404. A payment link
 * (createOneStepLink's `payment_url`): the delivery address it asks for, card through the checkout with the
 * link's card discount, its receipt; axe-core finds no serious or critical violation on it. A subscription link
 * paid by boleto on its page: the subscription active.
 */
// suite: serial (a headless Chromium): run alone, after the concurrent files; see scripts/test.sh.
// suite: database-independent (its subject is the pages in a browser; the storage under them is tested on both databases by the API and page tests)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { launchChromium, newContext, PHONE, screenshot, visibleText } from '../helpers/browser.ts';
import { billingApi, CARDS, customer, type BillingApi } from './helpers.ts';
import { assertAccessible } from '../console/helpers.ts';
import { brasiliaDate } from '../../src/platform/calendar.ts';

const EFI_HOSTS = /^https:\/\/cobrancas(-h)?\.api\.efipay\.com\.br\//;
const MERCHANT = 'Livraria Horizonte Ltda';
const ORDER = [
  { name: 'Dom Casmurro (edição comentada)', value: 5990, amount: 2 },
  { name: 'Marcador de páginas', value: 1250, amount: 1 },
];
/** No path of a request property may reach a shopper's eyes. */
const PROPERTY_PATH = /payment\.|credit_card|customer\.|body\/|\/customer/;

let svc: TestService;
let merchant: Party;
let api: BillingApi;
let browser: Browser;

before(async () => {
  svc = await startTestService();
  merchant = await svc.newParty({ nome: MERCHANT });
  api = billingApi(svc.anonymous, merchant);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await svc.close();
});

async function newPage(viewport?: { width: number; height: number }): Promise<Page> {
  const context = await newContext(browser, { viewport });
  const page = await context.newPage();
  // payment-token-efi calls Efí's sandbox host: answer from pixd, same path and query.
  await page.route(EFI_HOSTS, async (route) => {
    const target = route.request().url().replace(EFI_HOSTS, `${svc.baseUrl}/`);
    const response = await route.fetch({ url: target });
    await route.fulfill({ response });
  });
  return page;
}

const newCharge = async () => (await api.ok('POST', '/v1/charge', { items: ORDER })).data;

async function openCheckout(url: string, viewport?: { width: number; height: number }): Promise<Page> {
  const page = await newPage(viewport);
  const response = await page.goto(url);
  assert.equal(response?.status(), 200);
  await page.waitForFunction(() => document.querySelector('#items tr.total') !== null);
  return page;
}

async function fillCard(page: Page, number: string) {
  await page.fill('#number', number);
  await page.waitForFunction(() => document.querySelectorAll('#installments option').length === 12);
  await page.fill('#holder', 'Gorbadoc Oldbuck');
  await page.fill('#month', '12');
  await page.fill('#year', String(new Date().getFullYear() + 2));
  await page.fill('#cvv', '123');
  await page.fill('#name', customer.name);
  await page.fill('#cpf', '942.715.646-56');
  await page.fill('#email', customer.email);
}

const resultText = (page: Page) => page.textContent('#result');

describe('checkout page (headless Chromium)', () => {
  it('shows the merchant, the summary in BRL and the sandbox card rule; invalid fields are named in Portuguese', async () => {
    const charge = await newCharge();
    const page = await openCheckout(charge.checkout_url);
    assert.equal(await page.getAttribute('html', 'lang'), 'pt-BR');
    assert.equal(await page.textContent('#merchant'), MERCHANT);
    assert.equal(await page.title(), `Pagamento para ${MERCHANT}`);
    const summary = await page.innerText('#items');
    assert.match(summary, /2 × Dom Casmurro \(edição comentada\)\s+R\$\s119,80/);
    assert.match(summary, /1 × Marcador de páginas\s+R\$\s12,50/);
    assert.match(summary, /Total\s+R\$\s132,30/);
    assert.equal(await page.textContent('#submit'), 'Pagar R$\u00a0132,30');

    assert.ok(await page.isVisible('#sandbox'));
    const banner = await page.innerText('#sandbox');
    assert.match(banner, /terminado em 1, 2 ou 3 são recusados; os demais são aprovados/);
    assert.match(banner, /4012 0010 3844 3335/);
    assert.match(banner, /5555 6666 7777 8884/);
    await screenshot(page, 'checkout-form-desktop');

    // Submitting the empty form: each field says what is missing, in Portuguese, and nothing is sent.
    await page.click('#submit');
    assert.equal(await resultText(page), 'Confira os campos destacados.');
    assert.equal(await page.textContent('#cpf-error'), 'CPF inválido. Confira os 11 dígitos.');
    assert.equal(await page.textContent('#cvv-error'), 'O CVV tem 3 ou 4 dígitos (no verso do cartão).');
    assert.equal(await page.getAttribute('#number', 'aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'number', 'focus on the first invalid field');
    await fillCard(page, CARDS.approved);
    await page.fill('#cpf', '111.111.111-12');
    await page.click('#submit');
    assert.equal(await page.textContent('#cpf-error'), 'CPF inválido. Confira os 11 dígitos.');

    // A server's validation error names a property; the shopper reads the field it is about.
    await page.fill('#cpf', '942.715.646-56');
    await page.route('**/checkout/*/pay', (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/json',
        body: JSON.stringify({
          code: 400,
          error: 'validation_error',
          error_description: 'payment.credit_card.customer.email: formato inválido.',
        }),
      }),
    );
    await page.click('#submit');
    await page.waitForFunction(() => document.getElementById('result')!.textContent === 'Informe um e-mail válido.');
    assert.equal(await page.textContent('#email-error'), 'Informe um e-mail válido.');
    assert.doesNotMatch(await visibleText(page), PROPERTY_PATH);
    assert.equal((await api.ok('GET', `/v1/charge/${charge.charge_id}`)).data.status, 'new', 'nothing was paid');

    const phone = await openCheckout(charge.checkout_url, PHONE);
    await screenshot(phone, 'checkout-form-phone');
    await phone.context().close();
    await page.context().close();
  });

  it('disables the button while paying; a refusal in Portuguese, then an approval shows the receipt, on reload too', async () => {
    const charge = await newCharge();
    const page = await openCheckout(charge.checkout_url);
    await fillCard(page, CARDS.security);
    assert.equal(await page.textContent('#brand'), 'Visa');
    await page.selectOption('#installments', '3');
    await page.click('#submit');
    await page.waitForFunction(() => /recusado/.test(document.getElementById('result')!.textContent ?? ''));
    assert.equal(
      await resultText(page),
      'Pagamento recusado: O emissor do cartão não autorizou o pagamento por segurança. Tente outro cartão.',
    );
    assert.equal(await page.isEnabled('#submit'), true, 'the form can be sent again');
    assert.doesNotMatch(await visibleText(page), /Transaction|not authorized/);

    // Hold the payment request: while it is in flight the button is disabled and says so.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let seen!: () => void;
    const requested = new Promise<void>((resolve) => {
      seen = resolve;
    });
    await page.route('**/checkout/*/pay', async (route) => {
      seen();
      await held;
      await route.continue();
    });
    await page.fill('#number', CARDS.approved);
    await page.waitForFunction(() => document.querySelectorAll('#installments option').length === 12);
    await page.selectOption('#installments', '3');
    await page.click('#submit');
    await requested;
    assert.equal(await page.isDisabled('#submit'), true);
    assert.equal(await page.textContent('#submit'), 'Processando pagamento…');
    assert.equal(await resultText(page), 'Processando pagamento…');
    await page.click('#submit', { force: true, noWaitAfter: true }); // a second click sends nothing
    release();
    await page.waitForFunction(() => !document.getElementById('receipt')!.hidden);

    assert.equal(await page.isHidden('#pay-section'), true, 'no new form once approved');
    assert.equal(await resultText(page), 'Pagamento aprovado. Guarde este comprovante.');
    assert.equal(await page.textContent('#receipt-status'), 'Pagamento aprovado.');
    const receipt = await page.innerText('#receipt-details');
    assert.match(receipt, new RegExp(`Recebedor\\s+${MERCHANT}`));
    assert.match(receipt, new RegExp(`Pedido\\s+nº ${charge.charge_id}`));
    assert.match(receipt, /Total\s+R\$\s132,30/);
    assert.match(receipt, /Cartão\s+Visa final 3335/);
    assert.match(receipt, /Parcelas\s+3x de R\$\s\d+,\d{2}/);
    assert.match(receipt, /Data\s+\d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}/);
    await screenshot(page, 'checkout-receipt-desktop');

    const detail = (await api.ok('GET', `/v1/charge/${charge.charge_id}`)).data;
    assert.equal(detail.status, 'approved');
    assert.equal(detail.payment.credit_card.mask, 'XXXXXXXXXXXX3335');
    const submitted = detail.history.filter((h: { message: string }) => /aguardando a resposta/.test(h.message));
    assert.equal(submitted.length, 2, 'one payment per card: the click while paying sent nothing');

    // The receipt is what the link shows from now on, not a new form; confirmed once settled.
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#items tr.total') !== null);
    assert.equal(await page.isVisible('#receipt'), true);
    assert.equal(await page.isHidden('#pay-section'), true);
    await api.ok('POST', `/sandbox/billing/charge/${charge.charge_id}/settle`);
    const phone = await openCheckout(charge.checkout_url, PHONE);
    assert.equal(await phone.textContent('#receipt-status'), 'Pagamento confirmado.');
    assert.equal(await phone.isHidden('#pay-section'), true);
    await screenshot(phone, 'checkout-receipt-phone');
    await phone.context().close();
    await page.context().close();
  });

  it('answers an unknown or malformed token with a friendly 404 page', async () => {
    const page = await newPage();
    for (const token of ['AAAAAAAAAAAAAAAAAAAAAAAA', 'x', 'not a token at all']) {
      const response = await page.goto(`${svc.baseUrl}/checkout/${encodeURIComponent(token)}`);
      assert.equal(response?.status(), 404, token);
      assert.match(String(response?.headers()['content-type']), /^text\/html/);
      assert.equal(await page.getAttribute('html', 'lang'), 'pt-BR');
      assert.equal(await page.textContent('h1'), 'Não encontramos esta página de pagamento');
      assert.match(await visibleText(page), /Nenhum pagamento foi feito/);
    }
    // The page's data stays in the billing error format.
    const data = await svc.anonymous.request('GET', '/checkout/AAAAAAAAAAAAAAAAAAAAAAAA/data');
    assert.equal(data.status, 404);
    assert.equal(data.body.error, 'checkout_not_found');
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
      { payee: merchant.payeeCode, number: CARDS.approved, year },
    );
    assert.equal(result.brand, 'visa');
    assert.equal(result.installments.installments.length, 12);
    assert.equal(result.token.card_mask, 'XXXXXXXXXXXX3335');
    const paid = await api.ok('POST', '/v1/charge/one-step', {
      items: ORDER,
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

describe('payment link page (headless Chromium)', () => {
  it('asks the delivery address, pays by card through the checkout with the card discount, then shows the receipt', async () => {
    const today = brasiliaDate(svc.clock.forAccount(merchant.accountId).now());
    const link = (
      await api.ok('POST', '/v1/charge/one-step/link', {
        items: ORDER,
        settings: {
          expire_at: today,
          request_delivery_address: true,
          payment_method: 'credit_card',
          card_discount: 1000,
          message: 'Entrega em até 5 dias úteis.',
        },
      })
    ).data;
    assert.equal(link.status, 'link');
    const page = await newPage();
    assert.equal((await page.goto(link.payment_url))?.status(), 200);
    assert.match(await page.innerText('main'), /Total\s+R\$\s132,30/);
    assert.match(await page.innerText('main'), /Cartão de crédito \(10% de desconto\)/);
    await assertAccessible(page, 'link page');
    await screenshot(page, 'link-desktop');
    const phone = await newPage(PHONE);
    await phone.goto(link.payment_url);
    await screenshot(phone, 'link-phone');
    await phone.context().close();

    await page.fill('#zipcode', '0131000');
    await page.fill('#street', 'Avenida Paulista');
    await page.fill('#number', '1000');
    await page.fill('#neighborhood', 'Bela Vista');
    await page.fill('#city', 'São Paulo');
    await page.fill('#state', 'SP');
    await page.click('button[type=submit]');
    assert.match((await page.textContent('#link-error')) ?? '', /CEP com 8 números/);
    await page.fill('#zipcode', '01310000');
    await page.click('button[type=submit]');
    await page.waitForURL(/\/checkout\//);
    await page.waitForFunction(() => document.querySelector('#items tr.total') !== null);
    await fillCard(page, CARDS.approved);
    await page.click('#submit');
    await page.waitForFunction(() => !document.getElementById('receipt')!.hidden);
    assert.match(await page.innerText('#receipt-details'), /Total\s+R\$\s119,07/);

    await page.goto(link.payment_url);
    assert.equal(await page.textContent('#receipt-status'), 'Pagamento aprovado');
    await assertAccessible(page, 'link receipt');
    await screenshot(page, 'link-receipt-desktop');
    const detail = (await api.ok('GET', `/v1/charge/${link.charge_id}`)).data;
    assert.deepEqual(
      detail.history.slice(0, 4).map((h: { message: string }) => h.message.split('.')[0]),
      [
        'Cobrança criada',
        'Link de pagamento criado',
        'Pagamento via cartão de crédito aguardando a resposta da operadora',
        'Pagamento via cartão de crédito aprovado pela operadora; aguardando confirmação',
      ],
    );
    await page.context().close();
  });

  it('a subscription link paid by boleto: the page shows the boleto and the subscription is active', async () => {
    const plan = (await api.ok('POST', '/v1/plan', { name: 'Assinatura pelo link', interval: 1 })).data;
    const made = (
      await api.ok('POST', `/v1/plan/${plan.plan_id}/subscription/one-step/link`, {
        items: ORDER,
        settings: {
          expire_at: brasiliaDate(svc.clock.forAccount(merchant.accountId).now()),
          request_delivery_address: false,
          payment_method: 'all',
        },
      })
    ).data;
    const page = await newPage();
    await page.goto(made.payment_url);
    await page.check('input[name=method][value=banking_billet]');
    await page.fill('#name', 'Gorbadoc Oldbuck');
    await page.fill('#cpf', '94271564656');
    await page.click('button[type=submit]');
    await page.waitForSelector('#boleto-line');
    await assertAccessible(page, 'subscription link boleto');
    const subscription = (await api.ok('GET', `/v1/subscription/${made.subscription_id}`)).data;
    assert.equal(subscription.status, 'active');
    assert.equal(subscription.payment_method, 'banking_billet');
    assert.equal((await api.ok('GET', `/v1/charge/${made.charge.id}`)).data.status, 'waiting');
    await page.context().close();
  });
});
