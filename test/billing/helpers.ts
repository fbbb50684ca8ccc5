/** Billing test helpers: a billing-token client per party and payment tokens made as a browser would. */
import { constants, publicEncrypt } from 'node:crypto';
import type { HttpsClient, Response } from '../helpers/https-client.ts';

export interface BillingParty {
  clientId: string;
  clientSecret: string;
  payeeCode: string;
  accountId: number;
}

export interface BillingApi {
  call<T = any>(method: string, path: string, body?: unknown): Promise<Response<T>>;
  /** Asserts the status and returns the body. */
  ok<T = any>(method: string, path: string, body?: unknown, status?: number): Promise<T>;
}

export function billingApi(http: HttpsClient, party: BillingParty): BillingApi {
  let token: string | undefined;
  // Tests move the service clock past the token's hour: an expired token is simply replaced.
  const call = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const res = await send(method, path, body);
    if (res.status !== 401) return res;
    token = undefined;
    return send(method, path, body);
  };
  const send = async (method: string, path: string, body?: unknown) => {
    if (!token) {
      const res = await http.request('POST', '/v1/authorize', {
        body: { grant_type: 'client_credentials' },
        headers: {
          authorization: 'Basic ' + Buffer.from(`${party.clientId}:${party.clientSecret}`).toString('base64'),
        },
      });
      if (res.status !== 200) throw new Error(`authorize failed: ${res.status} ${res.text}`);
      token = res.body.access_token as string;
    }
    return http.request(method, path, { token, body });
  };
  return {
    call,
    async ok(method, path, body, status = 200) {
      const res = await call(method, path, body);
      if (res.status !== status)
        throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${res.text}`);
      return res.body;
    },
  };
}

export const CARDS = {
  approved: '4012001038443335',
  invalidData: '4012001038443331',
  security: '4012001038443332',
  tryLater: '4012001038443333',
  mastercard: '5555666677778884',
} as const;

/** What the browser library does: fetch the public key, encrypt the card JSON, ask for a token. */
export async function cardCiphertext(
  http: HttpsClient,
  payeeCode: string,
  card: Record<string, unknown>,
): Promise<string> {
  const key = await http.request('GET', `/v1/pubkey?code=${payeeCode}`);
  if (key.status !== 200) throw new Error(`pubkey: ${key.status} ${key.text}`);
  const pem = `-----BEGIN PUBLIC KEY-----\n${key.body.data}\n-----END PUBLIC KEY-----\n`;
  return publicEncrypt({ key: pem, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(JSON.stringify(card))).toString(
    'base64',
  );
}

export function cardData(number: string, overrides: Record<string, unknown> = {}) {
  const year = String(new Date().getUTCFullYear() + 3);
  const brand = number.startsWith('4') ? 'visa' : number.startsWith('5') ? 'mastercard' : 'elo';
  return {
    brand,
    number,
    cvv: '123',
    expiration_month: '12',
    expiration_year: year,
    holder_name: 'Gorbadoc Oldbuck',
    holder_document: '94271564656',
    reuse: false,
    ...overrides,
  };
}

export async function paymentToken(
  http: HttpsClient,
  payeeCode: string,
  number: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const data = await cardCiphertext(http, payeeCode, cardData(number, overrides));
  const res = await http.request('GET', `/v1/card/${payeeCode}/jsonp?${new URLSearchParams({ data })}`);
  if (res.status !== 200) throw new Error(`card: ${res.status} ${res.text}`);
  return res.body.data.payment_token;
}

export const customer = {
  name: 'Gorbadoc Oldbuck',
  cpf: '94271564656',
  email: 'oldbuck@example.com',
  phone_number: '5144916523',
  birth: '1990-08-29',
};
export const items = [{ name: 'Meu Produto', value: 5990, amount: 2 }];

export const cardPayment = (payment_token: string, extra: Record<string, unknown> = {}) => ({
  payment: { credit_card: { customer, installments: 1, payment_token, ...extra } },
});
