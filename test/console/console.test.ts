/**
 * The web console in headless Chromium (Debian's /usr/bin/chromium through playwright-core; no download),
 * on the pages listener: straight in to the sandbox's demo account, a charge created through the API appears
 * live, the sandbox tool pays it, the charge shows CONCLUIDA and its webhook delivery, a replay reaches the
 * local receiver as a second attempt. A POST without the CSRF token is refused; a session sees another
 * account's charge as not found; the operator secret signs in to every account with a switcher. axe-core
 * checks the main pages (no serious or critical violations). With PIXD_CONSOLE_SCREENSHOTS=1 the pages are
 * photographed at desktop and phone widths into docs/images/.
 */
// suite: serial (a headless Chromium): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { startupSummary } from '../../src/runtime.ts';
import { billingApi, CARDS, cardPayment, items, paymentToken } from '../billing/helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.PIXD_CONSOLE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url) : undefined;
const VIEWPORTS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } };

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let demoApi: WebhookApi;
let console_: string;

before(async () => {
  svc = await startTestService();
  receiver = await Receiver.start({ clientCaPem: svc.caPem });
  demoApi = webhookApi(svc.demo);
  console_ = `${svc.service.ctx.pages.url}/console`;
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
});
after(async () => {
  await browser?.close();
  await receiver?.close();
  await svc.close();
});

async function newContext(): Promise<BrowserContext> {
  // pixd's certificate comes from its own CA: tests only.
  return browser.newContext({ ignoreHTTPSErrors: true, viewport: VIEWPORTS.desktop });
}

async function signInDemo(context: BrowserContext, photograph = false): Promise<Page> {
  const page = await context.newPage();
  await page.goto(console_);
  assert.match(page.url(), /\/console\/signin$/);
  if (photograph) await shoot(page, 'signin');
  await page.click('text=Entrar na conta demo');
  await page.waitForURL(console_);
  return page;
}

async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.addScriptTag({ content: AXE });
  const violations = (await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  })) as { id: string; impact: string }[];
  const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(severe, [], `${what}: ${JSON.stringify(severe)}`);
}

async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const [width, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(SHOTS.pathname, `console-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

async function createCob(party: Party, original: string): Promise<string> {
  const res = await webhookApi(party).call('POST', '/v2/cob', {
    calendario: { expiracao: 3600 },
    valor: { original },
    chave: party.chaves[0],
    devedor: { nome: 'Fulano de Tal', cpf: '12345678909' },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.txid as string;
}

describe('web console (headless Chromium)', () => {
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

    await page.goto(`${console_}/charges/cob/${txid}`);
    assert.match(await page.innerText('#live-region'), /CONCLUIDA/);
    await receiver.waitForCalls(1);
    // The delivery and its attempt appear live (the page keeps its event stream).
    await page.waitForSelector('.deliveries .badge.ok', { timeout: 15_000 });
    assert.equal(await page.locator('tr.attempt').count(), 1);
    await shoot(page, 'charge');

    const callsBefore = receiver.calls.length;
    await page.click('button:has-text("Reenviar")');
    await page.waitForSelector('.flash');
    assert.match(await page.innerText('.flash'), /Reenvio de/);
    await waitFor(async () => receiver.calls.length > callsBefore, 'the replayed webhook at the receiver');
    await page.waitForFunction(() => document.querySelectorAll('tr.attempt').length === 2, undefined, {
      timeout: 15_000,
    });
    assert.match(await page.innerText('.deliveries'), /webhook\.pix\.resend/);

    await page.goto(`${console_}/pix`);
    assert.match(await page.innerText('#received + *'), /R\$ 1\.234,56/);
    await assertAccessible(page, 'pix');
    await shoot(page, 'pix');

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

  it("scopes are roles: a demo session acts only with its application's scopes", async () => {
    // The demo application loses the resend and sandbox scopes for this sign-in only (sessions keep what they got).
    const db = svc.service.ctx.db;
    const { rows } = await db.query<{ scopes: string[] }>('select scopes from applications where client_id = $1', [
      svc.demo.clientId,
    ]);
    const narrowed = rows[0].scopes.filter((s) => s !== 'webhook.write' && s !== 'sandbox.write');
    await db.query('update applications set scopes = $2 where client_id = $1', [svc.demo.clientId, narrowed]);
    const context = await newContext();
    let page: Page;
    try {
      page = await signInDemo(context);
    } finally {
      await db.query('update applications set scopes = $2 where client_id = $1', [svc.demo.clientId, rows[0].scopes]);
    }
    assert.equal((await page.goto(`${console_}/webhooks`))!.status(), 200);
    assert.equal((await page.goto(`${console_}/sandbox`))!.status(), 403);
    assert.match(await page.innerText('main'), /sandbox\.write/);
    await page.goto(`${console_}/webhooks`);
    const csrf = await page.getAttribute('meta[name="csrf-token"]', 'content');
    const replay = await page.request.post(`${console_}/webhooks/replay`, { form: { e2eid: 'E1', _csrf: csrf! } });
    assert.equal(replay.status(), 403);
    await context.close();
  });

  it('is keyboard navigable: a skip link first, then the sections, followed with Enter', async () => {
    const context = await newContext();
    const page = await signInDemo(context);
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Pular para o conteúdo');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'pixd');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Cobranças');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${console_}/charges`);
    await context.close();
  });

  it('the start banner names the console URL', () => {
    assert.ok(
      startupSummary(svc.service).includes(`console (open in a browser; no client certificate asked): ${console_}`),
    );
  });

  it('refuses a change without the CSRF token (403) and with a wrong one', async () => {
    const context = await newContext();
    const page = await signInDemo(context);
    const bare = await page.request.post(`${console_}/sandbox/clock`, { form: { amount: '1', unit: 'dias' } });
    assert.equal(bare.status(), 403);
    const wrong = await page.request.post(`${console_}/sandbox/clock`, {
      form: { amount: '1', unit: 'dias', _csrf: 'x'.repeat(32) },
    });
    assert.equal(wrong.status(), 403);
    const signin = await page.request.post(`${console_}/signin`, { form: { mode: 'demo' } });
    assert.equal(signin.status(), 403);
    await context.close();
  });

  it("a session for one account gets 404 for another account's charge; the operator switches between accounts", async () => {
    const other = await svc.newParty({ nome: 'Outra Conta Ltda' });
    const theirs = await createCob(other, '77.00');
    const context = await newContext();
    const page = await signInDemo(context);
    const refused = await page.goto(`${console_}/charges/cob/${theirs}`);
    assert.equal(refused!.status(), 404);
    await page.goto(console_);
    // Nor can the demo session switch to it: only the accounts the session was given.
    const csrf = await page.getAttribute('meta[name="csrf-token"]', 'content');
    const forged = await page.request.post(`${console_}/switch`, {
      form: { account: String(other.accountId), _csrf: csrf! },
    });
    assert.equal(forged.status(), 404);
    assert.match(await forged.text(), /Conta não encontrada/);
    // The session rides in its signed cookie: rewritten to name the other account, it is no session at all.
    const [cookie] = (await context.cookies()).filter((c) => c.name === 'pixd_console');
    const [body, mac] = decodeURIComponent(cookie.value).split('.');
    const stored = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const rewritten = Buffer.from(
      JSON.stringify({ ...stored, accountIds: [other.accountId], current: other.accountId }),
    ).toString('base64url');
    await context.addCookies([{ ...cookie, value: encodeURIComponent(`${rewritten}.${mac}`) }]);
    await page.goto(`${console_}/charges/cob/${theirs}`);
    assert.match(page.url(), /\/console\/signin$/);
    await context.close();

    const operator = JSON.parse(fs.readFileSync(path.join(svc.config.dataDir, 'operator.json'), 'utf8')).secret;
    const opContext = await newContext();
    const op = await opContext.newPage();
    await op.goto(`${console_}/signin`);
    await op.fill('#secret', 'wrong-secret');
    await op.click('form.stack button');
    assert.match(await op.innerText('main'), /inválido/);
    await op.goto(`${console_}/signin`);
    await op.fill('#secret', operator);
    await op.click('form.stack button');
    await op.waitForURL(console_);
    await op.selectOption('#account-switch', String(other.accountId));
    await op.click('button:has-text("Trocar")');
    await op.goto(`${console_}/charges/cob/${theirs}`);
    assert.match(await op.innerText('#live-region'), /R\$ 77,00/);
    await op.selectOption('#account-switch', String(svc.demo.accountId));
    await op.click('button:has-text("Trocar")');
    assert.equal((await op.goto(`${console_}/charges/cob/${theirs}`))!.status(), 404);
    await opContext.close();
  });

  it('shows empty states that say what to do, and keyset pages through the charges', async () => {
    const fresh = await svc.newParty({ nome: 'Conta Vazia Ltda' });
    const operator = JSON.parse(fs.readFileSync(path.join(svc.config.dataDir, 'operator.json'), 'utf8')).secret;
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${console_}/signin`);
    await page.fill('#secret', operator);
    await page.click('form.stack button');
    await page.waitForURL(console_);
    await page.selectOption('#account-switch', String(fresh.accountId));
    await page.click('button:has-text("Trocar")');
    await page.goto(`${console_}/charges`);
    assert.match(await page.innerText('.empty'), /PUT \/v2\/cob/);
    await page.goto(`${console_}/webhooks`);
    assert.match(await page.innerText('.empty >> nth=0'), /PUT \/v2\/webhook/);
    await page.goto(`${console_}/charges?kind=cobr`);
    assert.match(await page.innerText('.empty'), /PUT \/v2\/cobr/);
    await page.goto(`${console_}/pix`);
    assert.match(await page.innerText('#live-region'), /Nenhum Pix recebido no período/);

    const txids: string[] = [];
    for (let i = 0; i < 27; i++) txids.push(await createCob(fresh, `${20 + i}.00`));
    await page.goto(`${console_}/charges`);
    const first = await page.locator('tbody tr').count();
    assert.equal(first, 25);
    await page.click('a[rel="next"]');
    const rest = await page.locator('tbody a').allInnerTexts();
    assert.deepEqual(rest.sort(), txids.slice(0, 2).sort());
    await page.goto(`${console_}/charges?txid=${txids[5]}`);
    assert.equal(await page.locator('tbody tr').count(), 1);
    await page.goto(`${console_}/charges?doc=123.456.789-09&status=CONCLUIDA`);
    assert.match(await page.innerText('.empty'), /Nenhuma cobrança corresponde/);
    await context.close();
  });
  it('a session survives a restart of the node (any node with the same database reads it)', async () => {
    const context = await newContext();
    const page = await signInDemo(context);
    await svc.close({ keepData: true });
    svc = await startTestService({}, { reuse: svc.data });
    console_ = `${svc.service.ctx.pages.url}/console`;
    // Cookies belong to the host, not the port: the browser sends the session to the restarted node.
    await page.goto(`${console_}/charges`);
    assert.equal(page.url(), `${console_}/charges`);
    assert.match(await page.innerText('h1'), /Cobranças/);
    await context.close();
  });
});
