/**
 * The console's sign-in under guessing, over HTTPS on the pages listener as a browser posts its form: failures
 * are throttled per user name (the operator is one), from every source, and per source address, only for the
 * names that failed there; while throttled no secret is checked; another user's right secret from the same
 * address still signs in. (40 wrong secrets, then the right one, used to sign in.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/service.ts';
import { HttpsClient, type Response } from '../helpers/https-client.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { createConsoleUser } from '../../src/console/users/service.ts';

const WINDOW_MS = LIMITS.consoleSigninFailureWindowSeconds * 1000;

describe('console sign-in: failed attempts', () => {
  let svc: TestService;
  let wallMs = Date.UTC(2026, 0, 5, 12);
  const clients: HttpsClient[] = [];
  let operatorSecret: string;

  before(async () => {
    svc = await startTestService({}, { wallClockMs: () => wallMs });
    operatorSecret = JSON.parse(fs.readFileSync(path.join(svc.data.dataDir, 'operator.json'), 'utf8')).secret;
  });
  after(async () => {
    for (const client of clients) client.close();
    await svc.close();
  });

  /** A browser at a source address (another loopback address plays another source). */
  function browserAt(localAddress = '127.0.0.1') {
    const http = new HttpsClient(svc.service.ctx.pages.url, svc.caPem, null, localAddress);
    clients.push(http);
    /** Posts the sign-in form as the page does: its CSRF token in the form and in the sign-in cookie. */
    return async (name: string, secret: string): Promise<Response> => {
      const page = await http.request('GET', '/console/signin');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
      return http.request('POST', '/console/signin', {
        rawBody: new URLSearchParams({ _csrf: csrf, name, secret }).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `pixd_console_signin=${encodeURIComponent(csrf)}`,
        },
      });
    };
  }

  async function newUser(name: string): Promise<string> {
    const user = await createConsoleUser(svc.service.ctx.db, new Date(), {
      name,
      role: 'viewer',
      contas: [svc.service.credentials.account.conta],
    });
    return user.secret;
  }

  const signedIn = (res: Response) => res.status === 303 && res.headers.location === '/console';

  it('throttles a user name after its failures, from every source, the right secret included', async () => {
    wallMs += WINDOW_MS;
    const signIn = browserAt();
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    for (let n = 0; n < LIMITS.consoleSigninFailuresPerUserMax; n++)
      assert.equal((await signIn('alice', `guess-${n}`)).status, 401, `failure ${n + 1}`);
    const over = await signIn('Alice ', 'guess-more');
    assert.equal(over.status, 429, over.text);
    assert.match(over.text, /Muitas tentativas de entrada com falha/);
    const retryAfter = Number(over.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= LIMITS.consoleSigninFailureWindowSeconds, `Retry-After: ${retryAfter}`);
    for (let n = 0; n < 30; n++) assert.equal((await signIn('alice', `guess-${n}`)).status, 429);
    assert.equal((await signIn('alice', alice)).status, 429, 'no secret is checked while throttled');
    assert.equal((await browserAt('127.0.0.2')('alice', alice)).status, 429, 'from another source too');
    assert.ok(signedIn(await signIn('bob', bob)), 'another user from the same address signs in');
    wallMs += WINDOW_MS;
    assert.ok(signedIn(await signIn('alice', alice)), 'the next window starts afresh');
  });

  it("throttles a source's failures without refusing another user's right secret", async () => {
    wallMs += WINDOW_MS;
    const signIn = browserAt();
    const carol = await newUser('carol');
    const dave = await newUser('dave');
    assert.equal((await signIn('carol', 'wrong')).status, 401);
    for (let n = 1; n < LIMITS.consoleSigninFailuresPerAddressMax; n++)
      assert.equal((await signIn(`nobody-${n}`, 'wrong')).status, 401, `failure ${n + 1}`);
    assert.equal((await signIn('nobody-more', 'wrong')).status, 429);

    assert.ok(signedIn(await signIn('dave', dave)), 'a user without failures here signs in');
    assert.ok(signedIn(await signIn('', operatorSecret)), 'so does the operator');
    assert.equal(
      (await signIn('carol', carol)).status,
      429,
      'a name that failed here waits, the right secret included',
    );
    assert.ok(signedIn(await browserAt('127.0.0.2')('carol', carol)), 'but not elsewhere');
    assert.equal((await signIn('', 'wrong')).status, 429, "the operator's failure here is checked and counted");
    assert.equal((await signIn('', operatorSecret)).status, 429, 'then the operator waits here too');
    wallMs += WINDOW_MS;
    assert.ok(signedIn(await signIn('carol', carol)));
  });
});
