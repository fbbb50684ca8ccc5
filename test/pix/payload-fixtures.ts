/** Shared by the location, payload and QR code tests: charge bodies, payer-side fetches, JWS checks. */
import assert from 'node:assert/strict';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet, type ProtectedHeaderParameters } from 'jose';
import { brasiliaDate } from '../../src/platform/calendar.ts';
import type { TestService } from '../helpers/service.ts';

/** A txid of our own: letters and digits, 32 of them, unique per call. */
export function txidFor(tag: string): string {
  return (tag + Date.now().toString(36) + Math.random().toString(36).slice(2) + '0'.repeat(35))
    .replace(/[^a-zA-Z0-9]/g, '')
    .slice(0, 32);
}

/** YYYY-MM-DD, `days` after today in Brasília on the service clock. */
export function brasiliaDay(svc: TestService, days = 0): string {
  return brasiliaDate(new Date(svc.clock.nowMs() + days * 86_400_000));
}

/** A due charge: due in `dueInDays`, payable 10 days after, with multa 2%, juros 1% a month and desconto 5.00 up to the due date. */
export function cobvBody(
  svc: TestService,
  chave: string,
  original = '500.00',
  dueInDays = 10,
  extra: Record<string, unknown> = {},
) {
  return {
    calendario: { dataDeVencimento: brasiliaDay(svc, dueInDays), validadeAposVencimento: 10 },
    devedor: {
      cnpj: '12345678000195',
      nome: 'Empresa de Serviços SA',
      logradouro: 'Rua 1',
      cidade: 'Recife',
      uf: 'PE',
      cep: '50000000',
    },
    valor: {
      original,
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 3, valorPerc: '1.00' },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: brasiliaDay(svc, dueInDays), valorPerc: '5.00' }] },
    },
    chave,
    solicitacaoPagador: 'Mensalidade.',
    ...extra,
  };
}

/** What a payer's institution does with a dynamic QR code: GET https://<location>, no credentials. */
export function fetchLocation(svc: TestService, location: string, query = '') {
  return svc.anonymous.request('GET', `https://${location}${query}`, { headers: { accept: 'application/jose' } });
}

export interface VerifiedPayload {
  header: ProtectedHeaderParameters;
  payload: Record<string, any>;
}

/** Verifies a JWS against the published JWK Set (fetched with the test client, which trusts our CA). */
export async function verifyPayload(svc: TestService, jws: string): Promise<VerifiedPayload> {
  const jwks = await svc.anonymous.request<JSONWebKeySet>('GET', '/.well-known/jwks.json');
  assert.equal(jwks.status, 200);
  const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(jwks.body));
  return { header: protectedHeader, payload: JSON.parse(new TextDecoder().decode(payload)) };
}

/** Fetches the location, checks it answers a signed payload, and returns it verified. */
export async function payloadAt(svc: TestService, location: string, query = ''): Promise<VerifiedPayload> {
  const res = await fetchLocation(svc, location, query);
  assert.equal(res.status, 200, res.text);
  assert.match(String(res.headers['content-type']), /^application\/jose/);
  return verifyPayload(svc, res.text);
}
