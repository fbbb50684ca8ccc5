/**
 * Sandbox clock control. The offset is service-wide state in the database, so every node agrees;
 * each node refreshes its cached offset on a short interval (see runtime).
 */
import type { Database, Sql } from '../platform/db/database.ts';
import type { OffsetClock } from '../platform/clock.ts';
import { readState, writeState } from '../platform/state.ts';

const OFFSET_STATE = 'sandbox.clock_offset_ms';
/** Bounds a single move so a typo cannot push the service centuries ahead. */
export const CLOCK_ADVANCE_MAX_SECONDS = 5 * 365 * 86_400;

export async function loadClockOffset(sql: Sql, clock: OffsetClock): Promise<void> {
  const stored = await readState<{ offsetMs: number }>(sql, OFFSET_STATE);
  clock.setOffsetMs(stored?.offsetMs ?? 0);
}

export async function advanceClock(db: Database, clock: OffsetClock, seconds: number): Promise<void> {
  await db.tx(async (sql) => {
    const stored = await readState<{ offsetMs: number }>(sql, OFFSET_STATE);
    const offsetMs = (stored?.offsetMs ?? 0) + seconds * 1000;
    await writeState(sql, OFFSET_STATE, { offsetMs });
    clock.setOffsetMs(offsetMs);
  });
}

export async function resetClock(db: Database, clock: OffsetClock): Promise<void> {
  await writeState(db, OFFSET_STATE, { offsetMs: 0 });
  clock.setOffsetMs(0);
}
