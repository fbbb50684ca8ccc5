/**
 * Billing charges created per second: a card charge (`POST /v1/charge`, status new) against a boleto issued in
 * one step (`POST /v1/charge/one-step` with banking_billet: the charge, its barcode, its due Pix charge, and the
 * answer's QR image), each over the parties' billing tokens (docs/billing.md, "Boletos").
 */
import type { Party } from '../targets.ts';
import { PIXD_TARGETS, spreadOverParties, type Scenario } from './scenario.ts';

const items = [{ name: 'Produto', value: 5990, amount: 2 }];
/** A due date a month ahead, fixed per run: every boleto of the run is the same request. */
const expireAt = () => new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
const customer = { name: 'Gorbadoc Oldbuck', cpf: '94271564656' };

function billingRequest(path: string, party: Party, body: unknown) {
  return {
    method: 'POST',
    path,
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Bearer ${party.billingToken}`,
    },
    body: JSON.stringify(body),
  };
}

function createScenario(id: string, title: string, path: string, body: () => unknown): Scenario {
  return {
    id,
    mode: 'max',
    title,
    load: (s) => `max, ${s.connections} connections`,
    targets: PIXD_TARGETS,
    async plan(target, s) {
      const fixed = body();
      return {
        url: target.url,
        durationS: s.durationS,
        expectStatus: 200,
        connections: await spreadOverParties(target, s.connections, (party) => billingRequest(path, party, fixed)),
      };
    },
  };
}

export const billingCardCreate = createScenario(
  'billing-card-create',
  'POST /v1/charge (card charge)',
  '/v1/charge',
  () => ({
    items,
  }),
);
export const billingBoletoCreate = createScenario(
  'billing-boleto-create',
  'POST /v1/charge/one-step (boleto)',
  '/v1/charge/one-step',
  () => ({
    items,
    payment: { banking_billet: { customer, expire_at: expireAt(), configurations: { fine: 200, interest: 33 } } },
  }),
);
