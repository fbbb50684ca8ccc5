/** The ceiling: the same mutual-TLS JSON round trip with no application behind it. */
import type { Scenario } from './scenario.ts';
import type { Settings } from '../settings.ts';
import { cobBody, jsonRequest, spreadOverParties } from './scenario.ts';

function echoAt(id: string, connections: (s: Settings) => number): Scenario {
  return {
    id,
    mode: 'max',
    title: 'echo (POST, same body)',
    load: (s) => `max, ${connections(s)} connections`,
    targets: ['echo'],
    async plan(target, s) {
      return {
        url: target.url,
        durationS: s.durationS,
        expectStatus: 200,
        connections: await spreadOverParties(target, connections(s), (party) =>
          jsonRequest('POST', '/echo', party, cobBody(party.chave)),
        ),
      };
    },
  };
}

export const echo = echoAt('echo', (s) => s.connections);
export const echoSaturated = echoAt('echo-saturated', (s) => s.saturationConnections);
