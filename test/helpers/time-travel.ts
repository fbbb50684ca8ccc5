/**
 * For tests that move the whole service's clock (every account's) by hours or days. Tokens live an hour
 * of real time; each call gets a fresh one all the same. Certificates are issued at the service clock's now
 * but checked by TLS against real time: create every party before moving the clock forward.
 */
import type { Party, TestService } from './service.ts';
import type { Response } from './https-client.ts';

export type Call = (method: string, path: string, body?: unknown) => Promise<Response>;

/** Calls as `party` with a token issued at the current service clock. */
export function callerWithFreshToken(party: Party): Call {
  return async (method, path, body) => {
    const token = await party.http.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials' },
      headers: { authorization: 'Basic ' + Buffer.from(`${party.clientId}:${party.clientSecret}`).toString('base64') },
    });
    if (token.status !== 200) throw new Error(`token failed: ${token.status} ${token.text}`);
    return party.http.request(method, path, { token: token.body.access_token, body });
  };
}

/** Puts the service clock at an instant (tests only ever move it forward: queued jobs keep their times). */
export function setClock(svc: TestService, iso: string): void {
  svc.clock.setOffsetMs(Date.parse(iso) - Date.now());
}
