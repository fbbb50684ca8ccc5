/** Immediate charges: create (max throughput and a fixed offered rate) and read. */
import { expectJson } from '../https-json.ts';
import type { Party, Target } from '../targets.ts';
import type { Settings } from '../settings.ts';
import { PIXD_TARGETS, cobBody, jsonRequest, spreadOverParties, type Scenario } from './scenario.ts';

function createConnections(target: Target, connections: number) {
  return spreadOverParties(target, connections, (party) => jsonRequest('POST', '/v2/cob', party, cobBody(party.chave)));
}

function cobCreateAt(id: string, connections: (s: Settings) => number): Scenario {
  return {
    id,
    mode: 'max',
    title: 'POST /v2/cob',
    load: (s) => `max, ${connections(s)} connections`,
    targets: PIXD_TARGETS,
    async plan(target, s) {
      return {
        url: target.url,
        durationS: s.durationS,
        expectStatus: 201,
        connections: await createConnections(target, connections(s)),
      };
    },
  };
}

export const cobCreate = cobCreateAt('cob-create', (s) => s.connections);
export const cobCreateSaturated = cobCreateAt('cob-create-saturated', (s) => s.saturationConnections);

/** One connection per application (the first BENCH_CONNECTIONS), each in its own autocannon instance, the instances staggered over a second. */
export const cobCreateAtRate: Scenario = {
  id: 'cob-create-rate',
  mode: 'rate',
  title: 'POST /v2/cob',
  load: (s) => `${s.ratePerSecond} req/s offered`,
  targets: PIXD_TARGETS,
  async plan(target, s) {
    const connections = await createConnections(target, s.connections);
    return {
      url: target.url,
      durationS: s.durationS,
      expectStatus: 201,
      connections,
      ratePerSecond: s.ratePerSecond,
      instances: connections.length,
    };
  },
};

/** Each application reads a charge of its own, created before the run. */
export const cobRead: Scenario = {
  id: 'cob-read',
  mode: 'max',
  title: 'GET /v2/cob/:txid',
  load: (s) => `max, ${s.connections} connections`,
  targets: PIXD_TARGETS,
  async plan(target, s) {
    const readOwnCharge = async (party: Party) => {
      const created = await expectJson(201, 'create charge to read', `${target.url}/v2/cob`, party.tls, {
        method: 'POST',
        body: JSON.parse(cobBody(party.chave)),
        headers: { authorization: `Bearer ${party.token}` },
      });
      return jsonRequest('GET', `/v2/cob/${created.txid}`, party);
    };
    return {
      url: target.url,
      durationS: s.durationS,
      expectStatus: 200,
      connections: await spreadOverParties(target, s.connections, readOwnCharge),
    };
  },
};
