/** Retry schedules: when the next attempt of a failed delivery is due, on the service clock. */
import { LIMITS } from '../limits.ts';

/** Minutes after the n-th failed attempt (index n-1) until the next; past the end, the delivery is given up. */
export type RetrySchedule = readonly number[];

export const PIX_RETRY_SCHEDULE: RetrySchedule = LIMITS.webhookRetryScheduleMinutes;
export const OPENING_RETRY_SCHEDULE: RetrySchedule = LIMITS.openingRetryScheduleMinutes;
/** Resends: one attempt, never rescheduled (spec). */
export const NO_RETRY: RetrySchedule = [];

const MINUTE_MS = 60_000;

/** When the next attempt is due after the `failures`-th failure at `failedAtMs`, or null when none is left. */
export function nextAttemptAt(schedule: RetrySchedule, failures: number, failedAtMs: number): Date | null {
  const minutes = schedule[failures - 1];
  return minutes === undefined ? null : new Date(failedAtMs + minutes * MINUTE_MS);
}

/** Attempts a delivery gets in all: the first plus one per schedule step. */
export const maxAttempts = (schedule: RetrySchedule) => schedule.length + 1;
