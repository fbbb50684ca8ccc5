/**
 * A scenario is one kind of load against some targets: it prepares whatever fixtures it needs on a
 * target (a charge to read, a webhook to deliver to...) and returns the load plan. To add one (settlement
 * throughput, GET /v2/pix, webhook delivery), write a module here and list it in `index.ts`.
 */
import type { LoadPlan, Connection } from '../load.ts';
import type { Settings } from '../settings.ts';
import type { Environment, Party, Target, TargetId } from '../targets.ts';

export interface Scenario {
  /** Stable id, used by BENCH_SCENARIOS and in the report. */
  id: string;
  /** What the report's tables call it, e.g. "POST /v2/cob". */
  title: string;
  /** `max`: as fast as answers come back (compared with the echo ceiling); `rate`: a fixed offered load. */
  mode: 'max' | 'rate';
  /** How the load is offered, for the report: "max, 10 connections", "500 req/s offered". */
  load(settings: Settings): string;
  targets: TargetId[];
  /** pixd's environment; default production. A sandbox scenario runs against a sandbox pixd started beside the production one. */
  environment?: Environment;
  /**
   * What one counted operation is, when it is not one request (e.g. "pairs" for create + pay): the report
   * then shows "<n> pairs/s", no share of the echo ceiling, and CPU per operation.
   */
  unit?: string;
  /** Fixtures on the target, then the plan. Only responses with `expectStatus` count as throughput. */
  plan(target: Target, settings: Settings): Promise<LoadPlan>;
}

export const PIXD_TARGETS: TargetId[] = ['pglite', 'postgres'];

/** The charge every POST /v2/cob sends (the echo server gets the same bytes). */
export function cobBody(chave: string): string {
  return JSON.stringify({ calendario: { expiracao: 3600 }, valor: { original: '12.34' }, chave });
}

export function jsonRequest(method: string, path: string, party: Party, body?: string): Connection['request'] {
  const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${party.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method, path, headers, ...(body !== undefined && { body }) };
}

/** `count` connections over the target's parties in turn: with one application per connection, no 429s. */
export async function spreadOverParties(
  target: Target,
  count: number,
  request: (party: Party) => Connection['request'] | Promise<Connection['request']>,
): Promise<Connection[]> {
  const perParty = await Promise.all(target.parties.map(request));
  return Array.from({ length: count }, (_, i) => {
    const k = i % target.parties.length;
    return { tls: target.parties[k].tls, request: perParty[k] };
  });
}
