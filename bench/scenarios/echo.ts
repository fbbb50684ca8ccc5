/** The ceiling: the same mutual-TLS JSON round trip with no application behind it. */
import type { Scenario } from './scenario.ts';
import { cobBody, jsonRequest, spreadOverParties } from './scenario.ts';

export const echo: Scenario = {
  id: 'echo',
  mode: 'max',
  title: 'echo (POST, same body)',
  load: (s) => `max, ${s.connections} connections`,
  targets: ['echo'],
  async plan(target, s) {
    return {
      url: target.url,
      durationS: s.durationS,
      expectStatus: 200,
      connections: await spreadOverParties(target, s.connections, (party) => jsonRequest('POST', '/echo', party, cobBody(party.chave))),
    };
  },
};
