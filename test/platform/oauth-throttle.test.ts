/**
 * The token endpoints under guessing: failed client authentications are throttled per client id and per
 * source address (429 with Retry-After, even for the right secret meanwhile), and a right secret presented
 * with the wrong certificate is answered exactly as a wrong secret.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { LIMITS } from '../../src/platform/limits.ts';

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

  it('throttles a client id after its failures, the right secret included, until the window passes', async () => {
    wallMs += LIMITS.oauthFailureWindowSeconds * 1000;
    const party = await svc.newParty();
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
    const right = await token(party, party.clientSecret);
    assert.equal(right.status, 429, 'no secret is checked while throttled');
    const other = await svc.newParty();
    assert.equal((await token(other, other.clientSecret)).status, 200, 'another client id is not throttled');
    wallMs += LIMITS.oauthFailureWindowSeconds * 1000;
    assert.equal((await token(party, party.clientSecret)).status, 200, 'the next window starts afresh');
  });

  it('throttles a source address that tries many client ids', async () => {
    wallMs += LIMITS.oauthFailureWindowSeconds * 1000;
    const party = await svc.newParty();
    for (let n = 0; n < LIMITS.oauthFailuresPerAddressMax; n++) {
      const res = await party.http.request('POST', '/v1/authorize', {
        body: { grant_type: 'client_credentials' },
        headers: basic(`unknown-${n}`, 'x'),
      });
      assert.equal(res.status, 401, `failure ${n + 1}`);
    }
    const over = await token(party, party.clientSecret);
    assert.equal(over.status, 429, over.text);
    wallMs += LIMITS.oauthFailureWindowSeconds * 1000;
    assert.equal((await token(party, party.clientSecret)).status, 200);
  });
});
