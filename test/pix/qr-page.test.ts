/**
 * The Pix QR page (`linkVisualizacao`) in headless Chromium (test/helpers/browser.ts): receiver, amount,
 * status and until when; the copy button puts the code on the clipboard and says so; once paid through
 * POST /sandbox/pix/pay the page says so and shows no QR to pay again; a due charge shows what is due today
 * and its dates; an expired charge and an unknown token are told in Portuguese (the latter a 404 page).
 */
// suite: serial (a headless Chromium): run alone, after the concurrent files; see scripts/test.sh.
// suite: database-independent (its subject is the pages in a browser; the storage under them is tested on both databases by the API and page tests)
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { dueAmountOn, lastPayableDate } from '../../src/pix/cobv/amount.ts';
import type { CobVBody } from '../../src/pix/cobv/schemas.ts';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { launchChromium, newContext, PHONE, screenshot, visibleText } from '../helpers/browser.ts';
import { brasiliaDay, cobvBody, txidFor } from './payload-fixtures.ts';

const RECEIVER = 'Padaria Pão Dourado Ltda';
/** What a Brazilian reads: R$ 1.234,56 (Intl writes a no-break space after R$). */
const brl = (cents: number) =>
  (cents / 100).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' }).replace(/\u00a0/g, ' ');
const brDate = (iso: string) => iso.split('-').reverse().join('/');
const brasiliaDateTime = (at: Date) =>
  at.toLocaleString('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });

let svc: TestService;
let receiver: Party;
let browser: Browser;
let token: string;
const call = (method: string, path: string, body?: unknown) => receiver.http.request(method, path, { token, body });

before(async () => {
  svc = await startTestService();
  receiver = await svc.newParty({ nome: RECEIVER, cidade: 'Salvador' });
  token = await receiver.token();
  browser = await launchChromium();
});
afterEach(() => svc.clock.setOffsetMs(0));
after(async () => {
  await browser?.close();
  await svc.close();
});

/** `linkVisualizacao` of the charge's location, as GET /v2/loc/:id/qrcode gives it. */
async function pageLink(charge: { loc: { id: number } }): Promise<string> {
  const res = await call('GET', `/v2/loc/${charge.loc.id}/qrcode`);
  assert.equal(res.status, 200, res.text);
  return res.body.linkVisualizacao;
}

async function open(link: string, options: { viewport?: typeof PHONE; clipboard?: boolean } = {}): Promise<Page> {
  const context = await newContext(browser, {
    viewport: options.viewport,
    clipboardOrigin: options.clipboard ? svc.service.ctx.pages.url : undefined,
  });
  const page = await context.newPage();
  const response = await page.goto(link);
  assert.equal(response?.status(), 200);
  return page;
}

describe('Pix QR page (headless Chromium)', () => {
  it('shows receiver, amount, status and expiry; copies the code and says so; once paid, says so', async () => {
    // Above the sandbox's auto-payment bound (10.00): nobody pays it but the test.
    const created = await call('PUT', `/v2/cob/${txidFor('QrPage')}`, cobBody(receiver.chaves[0], '149.90'));
    assert.equal(created.status, 201, created.text);
    const cob = created.body;
    const link = await pageLink(cob);
    const page = await open(link, { clipboard: true });

    assert.equal(await page.getAttribute('html', 'lang'), 'pt-BR');
    assert.equal(await page.textContent('h1'), RECEIVER);
    assert.equal(await page.textContent('#amount'), brl(14990));
    assert.equal(await page.textContent('#status'), 'Aguardando pagamento');
    assert.equal(await page.getAttribute('dl', 'data-status'), 'ATIVA');
    const expiresAt = new Date(new Date(cob.calendario.criacao).getTime() + cob.calendario.expiracao * 1000);
    assert.equal(await page.textContent('#expiry'), `${brasiliaDateTime(expiresAt)} (horário de Brasília)`);
    assert.equal(await page.inputValue('#code'), cob.pixCopiaECola);
    assert.ok(await page.isVisible('img[alt^="QR Code Pix"]'));
    assert.match(await page.innerText('.sandbox'), new RegExp(`pixd pay ${cob.txid}`));
    await screenshot(page, 'qr-page-desktop');

    await page.click('#copy');
    await page.waitForFunction(() => document.getElementById('copy-status')!.textContent !== '');
    assert.equal(
      await page.textContent('#copy-status'),
      'Código copiado. Cole no app do seu banco, na opção Pix Copia e Cola.',
    );
    assert.equal(await page.getAttribute('#copy-status', 'role'), 'status');
    assert.equal(await page.textContent('#copy'), 'Copiado');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), cob.pixCopiaECola);

    const phone = await open(link, { viewport: PHONE });
    await screenshot(phone, 'qr-page-phone');
    await phone.context().close();

    // Opened in a browser, the location URL of the payload shows this page, not a JWS file to download.
    const located = await open(`https://${cob.location}`);
    assert.equal(new URL(located.url()).pathname, new URL(link).pathname);
    assert.equal(await located.textContent('h1'), RECEIVER);
    await located.context().close();
    const jws = await svc.anonymous.request('GET', new URL(`https://${cob.location}`).pathname, {
      headers: { accept: 'application/jose' },
    });
    assert.equal(jws.status, 200, 'a payer app still gets the payload');
    assert.match(String(jws.headers['content-type']), /^application\/jose/);

    const paid = await call('POST', '/sandbox/pix/pay', { txid: cob.txid });
    assert.equal(paid.status, 201, paid.text);
    // Not reloaded by hand: the page watches its charge and shows it paid.
    await page.waitForSelector('dl[data-status="CONCLUIDA"]');
    assert.equal(await page.textContent('#status'), 'Paga');
    assert.equal(await page.getAttribute('dl', 'data-status'), 'CONCLUIDA');
    assert.equal(await page.textContent('#notice'), 'Pagamento recebido. Esta cobrança já está paga.');
    assert.equal(await page.$('#code'), null, 'no code to pay again');
    assert.equal(await page.$('img'), null, 'no QR to pay again');
    await screenshot(page, 'qr-page-paid');
    await page.context().close();
  });

  it('a due charge shows what is due today, its due date and last payable day', async () => {
    const body = cobvBody(svc, receiver.chaves[0], '500.00', 10);
    const created = await call('PUT', `/v2/cobv/${txidFor('QrPageV')}`, body);
    assert.equal(created.status, 201, created.text);
    const page = await open(await pageLink(created.body));
    const stored = created.body as CobVBody;
    const due = dueAmountOn(stored, brasiliaDay(svc));
    assert.ok(due.descontoCents > 0, 'the discount applies before the due date');
    assert.equal(await page.textContent('#amount'), brl(due.finalCents));
    assert.equal(await page.textContent('#status'), 'Aguardando pagamento');
    assert.equal(await page.textContent('#due'), brDate(body.calendario.dataDeVencimento));
    assert.equal(await page.textContent('#expiry'), brDate(lastPayableDate(stored)));
    await page.context().close();
  });

  it('an expired charge is told, without a QR; an unknown token gets a friendly 404 page', async () => {
    const created = await call(
      'PUT',
      `/v2/cob/${txidFor('QrPageExp')}`,
      cobBody(receiver.chaves[0], '75.00', { calendario: { expiracao: 60 } }),
    );
    assert.equal(created.status, 201, created.text);
    const link = await pageLink(created.body);
    svc.advance(120);
    const page = await open(link);
    assert.equal(await page.textContent('#status'), 'Expirada');
    assert.equal(await page.textContent('#notice'), 'O prazo para pagar esta cobrança terminou.');
    assert.match(await page.innerText('dl'), /Expirou em/);
    assert.equal(await page.$('#code'), null);

    const unknown = await page.goto(`${svc.baseUrl}/qr/visualizar/0123456789abcdef0123456789abcdef`);
    assert.equal(unknown?.status(), 404);
    assert.match(String(unknown?.headers()['content-type']), /^text\/html/);
    assert.equal(await page.textContent('h1'), 'Não encontramos este QR Code Pix');
    assert.doesNotMatch(await visibleText(page), /PayloadLocation|problem|type/);
    await page.context().close();
  });
});
