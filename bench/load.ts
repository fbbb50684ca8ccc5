/**
 * Drives autocannon over mutual TLS. Each connection has its own TLS identity and request (set in
 * `setupClient`, before the client connects), so one run can spread its load over several applications.
 *
 * Latency percentiles are computed here from every response's own time, counting only the expected
 * status: autocannon's histogram mixes in non-2xx responses, and in fixed-rate mode its coordinated-
 * omission correction (autocannon 9 uses an expected interval of ceil(1/rate) = 1 ms, not 1000/rate ms)
 * adds synthetic samples for every response slower than 1 ms.
 */
import autocannon, { type Client, type Request, type Result } from 'autocannon';
import type { ConnectionOptions } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './stats.ts';
import { onCleanup, throwIfInterrupted } from './lifecycle.ts';

/** What one connection sends, over and over: one request, or a sequence whose requests build on earlier answers. */
export interface Connection {
  tls: ConnectionOptions;
  request: Required<Pick<Request, 'method' | 'path' | 'headers'>> & { body?: string };
  /** Sent in turn instead of `request` (autocannon's request sequence: `setupRequest`, `onResponse`). */
  sequence?: Request[];
}

export interface LoadPlan {
  url: string;
  connections: Connection[];
  durationS: number;
  expectStatus: number;
  /** Offered requests per second over all connections; unset means as fast as responses come back. */
  ratePerSecond?: number;
  /**
   * Split the connections over this many autocannon instances, started evenly across one second.
   * autocannon paces a fixed rate per connection per one-second window (a burst, then a pause); staggered
   * instances spread those bursts so the offered load arrives through the second instead of all at once.
   */
  instances?: number;
  /**
   * A load loop of the scenario's own, run instead of autocannon for `durationS` (a flow of dependent
   * requests, say); `connections` is then unused. It returns the same measurement.
   */
  run?: (durationS: number) => Promise<Measurement>;
}

export interface Measurement {
  expectStatus: number;
  /** Responses with the expected status, per second. */
  okPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  /** Count per status code, expected one included. */
  statuses: Record<string, number>;
  /** Connection errors and timeouts (no response at all). */
  errors: number;
}

export async function runLoad(plan: LoadPlan): Promise<Measurement> {
  if (plan.run) {
    throwIfInterrupted();
    return plan.run(plan.durationS);
  }
  const instances = Math.min(plan.instances ?? 1, plan.connections.length);
  const groups = Array.from({ length: instances }, (_, k) => plan.connections.filter((_, i) => i % instances === k));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const runs = groups.map(async (group, k) => {
    await sleep((k * 1000) / instances);
    let ok = 0;
    const result = await runInstance(
      plan,
      group,
      plan.ratePerSecond && Math.round(plan.ratePerSecond / instances),
      (status, ms) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status !== plan.expectStatus) return;
        ok++;
        latencies.push(ms);
      },
    );
    return { okPerSecond: ok / result.duration, errors: result.errors + result.timeouts };
  });
  const results = await Promise.all(runs);
  const sorted = Float64Array.from(latencies).sort();
  return {
    expectStatus: plan.expectStatus,
    okPerSecond: results.reduce((sum, r) => sum + r.okPerSecond, 0),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ok: latencies.length,
    statuses,
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

function runInstance(
  plan: LoadPlan,
  group: Connection[],
  rate: number | undefined,
  onResponse: (status: number, ms: number) => void,
): Promise<Result> {
  let next = 0;
  const setupClient = (client: Client) => {
    const connection = group[next++ % group.length];
    client.opts.tlsOptions = connection.tls;
    client.setRequests(connection.sequence ?? [connection.request]);
  };
  throwIfInterrupted();
  let forget: () => void = () => undefined;
  return new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: plan.url,
        connections: group.length,
        duration: plan.durationS,
        ...(rate && { overallRate: rate }),
        setupClient,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    // An interrupted bench stops the load at once (autocannon ends at its next one-second tick).
    forget = onCleanup(async () => instance.stop());
    instance.on('response', (_client: Client, status: number, _bytes: number, ms: number) => onResponse(status, ms));
  }).finally(() => forget());
}
