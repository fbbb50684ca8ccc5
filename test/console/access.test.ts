/**
 * Who may see and do what in the console, in headless Chromium: POSTs without or with a wrong CSRF token are
 * refused; a session gets 404 for another account's charge, cannot switch to it nor rewrite its cookie to;
 * the operator signs in and switches; scopes act as roles; keyboard navigation; empty states, keyset paging
 * and search; the start banner; a session survives a restart of the node.
 */
// suite: serial (a headless Chromium): run alone, after the concurrent files; see scripts/test.sh.
// suite: database-independent (its subject is the pages in a browser; the storage under them is tested on both databases by the API and page tests)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { webhookApi } from '../helpers/receiver.ts';
import { runPixd } from '../helpers/cli.ts';
import { startupSummary } from '../../src/runtime.ts';
import { consoleUrl, createCob, demoSignIn, openContext, startRig, stopRig, type ConsoleRig } from './helpers.ts';

let rig: ConsoleRig;
let svc: TestService;
let browser: Browser;
let console_: string;

before(async () => {
  rig = await startRig();
  ({ svc, browser } = rig);
  console_ = consoleUrl(svc);
});
after(async () => {
  rig.svc = svc;
  await stopRig(rig);
});

const newContext = () => openContext(browser);
const signInDemo = (context: BrowserContext, photograph = false) => demoSignIn(context, console_, photograph);

describe('web console access (headless Chromium)', () => {
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
    // Never framed, scripts only from pixd (the page above worked under this policy).
    const headers = (await page.request.get(console_)).headers();
    assert.match(headers['content-security-policy'], /frame-ancestors 'none'/);
    assert.match(headers['content-security-policy'], /script-src 'self'/);
    assert.equal(headers['x-frame-options'], 'DENY');
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

    // Received Pix page by keyset too, newest first; the sent list keeps its own place.
    const api = webhookApi(fresh);
    const paid: string[] = [];
    for (const txid of txids) {
      const res = await api.call('POST', '/sandbox/pix/pay', { txid });
      assert.equal(res.status, 201, res.text);
      paid.push(res.body.endToEndId);
    }
    await page.goto(`${console_}/pix`);
    const newest = await page.locator('#received + * tbody tr td:nth-child(2)').allInnerTexts();
    assert.deepEqual(newest, paid.slice(2).reverse());
    await page.click('#received ~ p.pager a[rel="next"]');
    assert.match(page.url(), /rbefore=/);
    assert.deepEqual(
      await page.locator('#received + * tbody tr td:nth-child(2)').allInnerTexts(),
      paid.slice(0, 2).reverse(),
    );
    assert.equal(await page.locator('#received ~ p.pager a[rel="next"]').count(), 0);
    await page.click('#received ~ p.pager a:has-text("Mais recentes")');
    assert.equal(await page.locator('#received + * tbody tr').count(), 25);
    await context.close();
  });

  it('signing out revokes the session: a copy of its cookie taken before is refused, its live stream ends', async () => {
    const context = await newContext();
    const page = await signInDemo(context);
    const copied = (await context.cookies()).filter((c) => c.name === 'pixd_console');
    assert.equal(copied.length, 1);
    // Another browser holding the copy reads pages, with a live stream open.
    const thief = await newContext();
    await thief.addCookies(copied);
    const stolen = await thief.newPage();
    await stolen.goto(`${console_}/charges`);
    assert.equal(stolen.url(), `${console_}/charges`);
    await stolen.waitForSelector('#live[data-state="on"]');
    const csrf = (await stolen.getAttribute('form[action="/console/signout"] input[name="_csrf"]', 'value'))!;

    await page.click('button:has-text("Sair")');
    await page.waitForURL(/\/console\/signin$/);
    // The stream of the copy ends within a poll, and reconnecting is refused: the badge says offline.
    await stolen.waitForSelector('#live[data-state="off"]', { timeout: 15_000 });
    await stolen.goto(`${console_}/charges`);
    assert.match(stolen.url(), /\/console\/signin$/);
    // The copy sent by hand (the browser dropped it when told to), with the CSRF token its page had: a read is
    // sent to sign in, a change refused.
    const cookie = `pixd_console=${copied[0].value}`;
    const read = await stolen.request.get(`${console_}/charges`, { headers: { cookie }, maxRedirects: 0 });
    assert.equal(read.status(), 302);
    assert.match(read.headers().location, /\/console\/signin$/);
    const change = await stolen.request.post(`${console_}/switch`, {
      headers: { cookie },
      form: { _csrf: csrf, account: String(svc.demo.accountId) },
      maxRedirects: 0,
    });
    assert.equal(change.status(), 403);
    // Signing in again makes a new session, unaffected.
    await page.click('text=Entrar na conta demo');
    await page.waitForURL(console_);
    await thief.close();
    await context.close();
  });

  it('a console user (pixd console-user create) sees only its accounts and gets 403 for what its role lacks', async () => {
    const db = svc.service.ctx.db;
    const shared = await svc.newParty({ nome: 'Loja Compartilhada' });
    const hidden = await svc.newParty({ nome: 'Loja Oculta' });
    const contaOf = async (accountId: number) =>
      (await db.query<{ conta: string }>('select conta from accounts where id = $1', [accountId])).rows[0].conta;
    const theirs = await createCob(hidden, '55.00');
    const ours = await createCob(shared, '44.00');
    const run = await runPixd(
      [
        'console-user',
        'create',
        '--name',
        'Ana.Viewer',
        '--role',
        'viewer',
        '--contas',
        `${await contaOf(svc.demo.accountId)},${await contaOf(shared.accountId)}`,
        '--data-dir',
        svc.data.dataDir,
      ],
      { DATABASE_URL: svc.data.databaseUrl },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /created console user ana\.viewer \(viewer\)/);
    const secret = /secret: (\S+)/.exec(run.stdout)![1];
    // Kept hashed, never in the clear.
    const stored = await db.query<{ secret_hash: string }>('select secret_hash from console_users where name = $1', [
      'ana.viewer',
    ]);
    assert.notEqual(stored.rows[0].secret_hash, secret);
    // The operator API refuses a taken name (409) and an account that does not exist (400).
    const operator = JSON.parse(fs.readFileSync(path.join(svc.config.dataDir, 'operator.json'), 'utf8')).secret;
    const create = (body: object) =>
      svc.anonymous.request('POST', '/operator/console-users', {
        body,
        headers: { authorization: `Bearer ${operator}` },
      });
    assert.equal(
      (await create({ name: 'ana.viewer', role: 'viewer', contas: [await contaOf(shared.accountId)] })).status,
      409,
    );
    assert.equal((await create({ name: 'bruno', role: 'viewer', contas: ['000000000'] })).status, 400);
    assert.equal(
      (await create({ name: 'bruno', role: 'root', contas: [await contaOf(shared.accountId)] })).status,
      400,
    );

    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${console_}/signin`);
    await page.fill('#name', 'ana.viewer');
    await page.fill('#secret', 'not-the-secret');
    await page.click('form.stack button');
    assert.match(await page.innerText('main'), /Usuário ou segredo inválido/);
    await page.goto(`${console_}/signin`);
    await page.fill('#name', 'Ana.Viewer');
    await page.fill('#secret', secret);
    await page.click('form.stack button');
    await page.waitForURL(console_);
    // The switcher offers its two accounts, no other.
    const offered = await page
      .locator('#account-switch option')
      .evaluateAll((options) => options.map((o) => Number((o as HTMLOptionElement).value)));
    assert.deepEqual(offered.sort(), [svc.demo.accountId, shared.accountId].sort());
    await page.selectOption('#account-switch', String(shared.accountId));
    await page.click('button:has-text("Trocar")');
    await page.goto(`${console_}/charges/cob/${ours}`);
    assert.match(await page.innerText('#live-region'), /R\$ 44,00/);
    assert.equal((await page.goto(`${console_}/charges/cob/${theirs}`))!.status(), 404);
    // A viewer reads, and changes nothing: replay and the sandbox tools need scopes its role lacks.
    assert.equal((await page.goto(`${console_}/webhooks`))!.status(), 200);
    const csrf = (await page.getAttribute('meta[name="csrf-token"]', 'content'))!;
    const sneak = await page.request.post(`${console_}/switch`, {
      form: { account: String(hidden.accountId), _csrf: csrf },
    });
    assert.equal(sneak.status(), 404);
    const replay = await page.request.post(`${console_}/webhooks/replay`, { form: { e2eid: 'E1', _csrf: csrf } });
    assert.equal(replay.status(), 403);
    assert.match(await replay.text(), /webhook\.write/);
    assert.equal((await page.goto(`${console_}/sandbox`))!.status(), 403);

    // Listed by the operator: name, role, its accounts, when it was made.
    const pixd = (...args: string[]) =>
      runPixd(['console-user', ...args, '--data-dir', svc.data.dataDir], { DATABASE_URL: svc.data.databaseUrl });
    const listed = await pixd('list', '--json');
    assert.equal(listed.status, 0, listed.stderr);
    const [ana] = (JSON.parse(listed.stdout) as { users: Record<string, unknown>[] }).users.filter(
      (u) => u.name === 'ana.viewer',
    );
    assert.deepEqual(
      { ...ana, createdAt: typeof ana.createdAt },
      {
        name: 'ana.viewer',
        role: 'viewer',
        contas: [await contaOf(svc.demo.accountId), await contaOf(shared.accountId)].sort(),
        createdAt: 'string',
      },
    );
    assert.ok(Math.abs(Date.parse(ana.createdAt as string) - svc.clock.now().getTime()) < 600_000);
    const table = await pixd('list');
    assert.match(table.stdout, /^NAME\s+ROLE\s+CREATED \(UTC\)\s+ACCOUNTS/);
    assert.match(table.stdout, /^ana\.viewer\s+viewer\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}\s+\d+, \d+$/m);
    assert.doesNotMatch(table.stdout, /secret/i);

    // A new secret: the open session is refused at its next request (and its live stream ends), the old
    // secret no longer signs in, the new one does.
    await page.goto(`${console_}/charges`);
    await page.waitForSelector('#live[data-state="on"]');
    const rotated = await pixd('rotate-secret', '--name', 'Ana.Viewer');
    assert.equal(rotated.status, 0, rotated.stderr);
    assert.match(rotated.stdout, /new secret for console user ana\.viewer/);
    const newSecret = /secret: (\S+)/.exec(rotated.stdout)![1];
    assert.notEqual(newSecret, secret);
    await page.waitForSelector('#live[data-state="off"]', { timeout: 10_000 });
    await page.goto(`${console_}/webhooks`);
    assert.match(page.url(), /\/console\/signin$/);
    const signIn = async (userSecret: string) => {
      await page.goto(`${console_}/signin`);
      await page.fill('#name', 'ana.viewer');
      await page.fill('#secret', userSecret);
      await page.click('form.stack button');
    };
    await signIn(secret);
    assert.match(await page.innerText('main'), /Usuário ou segredo inválido/);
    await signIn(newSecret);
    await page.waitForURL(console_);
    assert.equal((await page.goto(`${console_}/webhooks`))!.status(), 200);
    const nobody = await pixd('rotate-secret', '--name', 'nobody');
    assert.equal(nobody.status, 1);
    assert.match(nobody.stderr, /no console user named nobody/);

    // Made a developer of the shared account only: the open session (a viewer of two) is refused at its next
    // request; signed in again, it has the one account and the sandbox tools its new role allows.
    const updated = await pixd(
      'update',
      '--name',
      'ana.viewer',
      '--role',
      'developer',
      '--contas',
      await contaOf(shared.accountId),
    );
    assert.equal(updated.status, 0, updated.stderr);
    assert.match(
      updated.stdout,
      new RegExp(`ana\\.viewer is now developer for account\\(s\\) ${await contaOf(shared.accountId)};`),
    );
    await page.goto(`${console_}/webhooks`);
    assert.match(page.url(), /\/console\/signin$/);
    await signIn(newSecret);
    await page.waitForURL(console_);
    assert.equal(await page.locator('#account-switch').count(), 0, 'one account: no switcher');
    assert.match(await page.innerText('.account'), /Loja Compartilhada/);
    assert.equal((await page.goto(`${console_}/sandbox`))!.status(), 200);
    assert.equal((await page.goto(`${console_}/charges/cob/${ours}`))!.status(), 200);
    // Refusals name what is wrong: an unknown role or account, nothing to change.
    for (const [args, message] of [
      [['--role', 'root'], /role must be one of/],
      [['--contas', '000000000'], /no such account: 000000000/],
      [[], /give a role, accounts \(contas\), or both/],
    ] as const) {
      const refused = await pixd('update', '--name', 'ana.viewer', ...args);
      assert.equal(refused.status, 1, refused.stdout);
      assert.match(refused.stderr, message);
    }

    // Removed by the operator: the open session is refused at its next request, and a second removal says so.
    const remove = () => pixd('remove', '--name', 'ana.viewer');
    const removed = await remove();
    assert.equal(removed.status, 0, removed.stderr);
    assert.match(removed.stdout, /removed console user ana\.viewer/);
    await page.goto(`${console_}/webhooks`);
    assert.match(page.url(), /\/console\/signin$/);
    const again = await remove();
    assert.equal(again.status, 1);
    assert.match(again.stderr, /no console user named ana\.viewer/);
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
  it('in production: no demo entry, the operator secret signs in, no sandbox page', async () => {
    const production = await startTestService({ PIXD_ENV: 'production' });
    try {
      const url = consoleUrl(production);
      const context = await newContext();
      const page = await context.newPage();
      await page.goto(`${url}/signin`);
      assert.equal(await page.locator('text=Entrar na conta demo').count(), 0);
      const csrf = (await page.getAttribute('input[name="_csrf"]', 'value'))!;
      const demo = await page.request.post(`${url}/signin`, { form: { mode: 'demo', _csrf: csrf } });
      assert.equal(demo.status(), 403);
      const secret = JSON.parse(fs.readFileSync(path.join(production.config.dataDir, 'operator.json'), 'utf8')).secret;
      await page.goto(`${url}/signin`);
      await page.fill('#secret', secret);
      await page.click('form.stack button');
      await page.waitForURL(url);
      assert.equal(await page.locator('nav a[href="/console/sandbox"]').count(), 0);
      assert.equal((await page.goto(`${url}/sandbox`))!.status(), 404);
      await context.close();
    } finally {
      await production.close();
    }
  });
});
