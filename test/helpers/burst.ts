/** Fires requests with bounded concurrency and tallies the answers: rate-limit tests over real HTTPS. */
import { LIMITS } from '../../src/platform/limits.ts';

export interface BurstResult {
  statuses: number[];
  retryAfter: unknown[];
  /** How many answers had this status. */
  count(status: number): number;
}

export async function burst(
  count: number,
  send: () => Promise<{ status: number; headers: Record<string, unknown> }>,
  concurrency = 16,
): Promise<BurstResult> {
  const statuses: number[] = [];
  const retryAfter: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next++ < count) {
      const res = await send();
      statuses.push(res.status);
      if (res.status === 429) retryAfter.push(res.headers['retry-after']);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { statuses, retryAfter, count: (status) => statuses.filter((s) => s === status).length };
}

/**
 * One request past the per-second limit. The service must run on a frozen wall clock
 * (`startTestService({}, { wallClockMs })`) so the whole burst falls in one window.
 */
export const overLimit = (send: () => Promise<{ status: number; headers: Record<string, unknown> }>) =>
  burst(LIMITS.rateLimitRequestsPerSecond + 1, send);
