/**
 * The token endpoints under guessing: failed client authentications are throttled per client id (429 with
 * Retry-After from every source, the right secret included, unless presented with the application's own
 * certificate) and per source address (only for the client ids that failed there: a right secret of another
 * client on that address passes), and a right secret presented with the wrong certificate is answered
 * exactly as a wrong secret.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { HttpsClient } from '../helpers/https-client.ts';

describe('token endpoints: failed authentications', () => {
  let svc: TestService;
  let wallMs = Date.UTC(2026, 0, 5, 12);
  before(async () => {
    svc = await startTestService({}, { wallClockMs: () => wallMs });
  });
  after(() => svc.close());

  const basic = (clientId: string, secret: string) => ({
    authorization: 'Basic ' + Buffer.from(`${clientId}:${secret}`).toString('base64'),
  });
  const token = (party: Party, secret: string, identity?: Party['identity'] | null) =>
    party.http.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials' },
      headers: basic(party.clientId, secret),
      ...(identity !== undefined && { identity }),
    });

  it('answers a right secret with the wrong certificate exactly as a wrong secret', async () => {
    const a = await svc.newParty();
    const b = await svc.newParty();
    const wrongSecret = await token(a, 'not-the-secret');
    const wrongCertificate = await token(a, a.clientSecret, b.identity);
    assert.equal(wrongSecret.status, 401);
    assert.equal(wrongCertificate.status, 401);
    assert.deepEqual(wrongCertificate.body, wrongSecret.body);
  });

  const authorize = (clientId: string, secret: string, http = svc.anonymous) =>
    http.request('POST', '/v1/authorize', {
      body: { grant_type: 'client_credentials' },
      headers: basic(clientId, secret),
    });
  /** A client on another loopback address: another source. */
  const elsewhere = (identity: Party['identity'] | null = null) =>
    new HttpsClient(svc.baseUrl, svc.caPem, identity, '127.0.0.2');

  it('throttles a client id after its failures, from every source, until the window passes', async () => {
    wallMs += LIMITS.oauthFailureWindowSeconds * 1000;
    const party = await svc.newParty();
    const other = await svc.newParty();
    for (let n = 0; n < LIMITS.oauthFailuresPerClientMax; n++)
      assert.equal((await token(party, `guess-${n}`)).status, 401, `failure ${n + 1}`);
    const over = await token(party, 'guess-more');
    assert.equal(over.status, 429, over.text);
    assert.equal(over.body.error, 'too_many_requests');
    const retryAfter = Number(over.headers['retry-after']);
    assert.ok(
      retryAfter >= 1 && retryAfter <= LIMITS.oauthFailureWindowSeconds,
      `Retry-After says when: ${retryAfter}`,
    );
    // No secret is checked while throttled: the right one, without the application's certificate, learns nothing.
    assert.equal((await authorize(party.clientId, party.clientSecret)).status, 429, 'billing: no certificate');
    assert.equal((await token(party, party.clientSecret, other.identity)).status, 429, "another's certificate");
    const remote = elsewhere();
    try {
      assert.equal((await authorize(party.clientId, party.clientSecret, remote)).status, 429, 'from another source');
    } finally {
      remote.close();
    }
    // Whoever presents the application's own certificate holds its key: not the guesser.
    assert.equal((await token(party, party.clientSecret)).status, 200, 'the owner, with its certificate');
    assert.equal((await token(other, other.clientSecret)).status, 200, 'another client id is not throttled');
    wallMs += LIMITS.oauthFailureWindowSeconds * 1000;
    assert.equal((await authorize(party.clientId, party.clientSecret)).status, 200, 'the next window starts afresh');
  });

  it("throttles a source's failures without refusing another client's right secret", async () => {
    wallMs += LIMITS.oauthFailureWindowSeconds * 1000;
    const failedHere = await svc.newParty();
    const bystander = await svc.newParty();
    assert.equal((await authorize(failedHere.clientId, 'wrong')).status, 401);
    for (let n = 1; n < LIMITS.oauthFailuresPerAddressMax; n++)
      assert.equal((await authorize(`unknown-${n}`, 'x')).status, 401, `failure ${n + 1}`);
    const over = await authorize('unknown-more', 'x');
    assert.equal(over.status, 429, over.text);
    assert.ok(Number(over.headers['retry-after']) >= 1);

    // Another client behind the same address, with its right secret: its own failures are none.
    assert.equal((await authorize(bystander.clientId, bystander.clientSecret)).status, 200, over.text);
    assert.equal((await token(bystander, bystander.clientSecret)).status, 200);
    // A client id that failed from this address waits there, the right secret included; not elsewhere.
    assert.equal((await authorize(failedHere.clientId, failedHere.clientSecret)).status, 429);
    const remote = elsewhere();
    try {
      assert.equal((await authorize(failedHere.clientId, failedHere.clientSecret, remote)).status, 200);
    } finally {
      remote.close();
    }
    assert.equal((await token(failedHere, failedHere.clientSecret)).status, 200, 'the owner, with its certificate');
    // The bystander's first failure here is checked (and counted), then it waits here too.
    assert.equal((await authorize(bystander.clientId, 'wrong')).status, 429);
    assert.equal((await authorize(bystander.clientId, bystander.clientSecret)).status, 429);
    wallMs += LIMITS.oauthFailureWindowSeconds * 1000;
    assert.equal((await authorize(failedHere.clientId, failedHere.clientSecret)).status, 200);
  });
});
