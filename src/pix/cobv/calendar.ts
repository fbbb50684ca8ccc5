/**
 * Calendar arithmetic for due charges on "epoch days" (whole days since 1970-01-01, UTC): a date is a
 * plain integer, so adding days, comparing and counting business days involve no time zone.
 * Business days are Monday to Friday; there is no holiday calendar (see docs/cobv.md).
 */

const DAY_MS = 86_400_000;
/** Brasília has been UTC-03:00 all year since daylight saving ended in 2019. */
const BRASILIA_OFFSET_MS = -3 * 3_600_000;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** Epoch day of a YYYY-MM-DD date; throws RangeError for anything else, including 2025-02-30. */
export function toEpochDay(date: string): number {
  const ms = DATE_RE.test(date) ? Date.parse(`${date}T00:00:00Z`) : NaN;
  // The round trip refuses dates the parser would roll over into the next month.
  if (Number.isNaN(ms) || fromEpochDay(ms / DAY_MS) !== date)
    throw new RangeError(`not a calendar date YYYY-MM-DD: "${date}"`);
  return ms / DAY_MS;
}

/** YYYY-MM-DD of an epoch day; throws RangeError outside years 0000-9999, which the format cannot write. */
export function fromEpochDay(day: number): string {
  const iso = new Date(day * DAY_MS).toISOString(); // itself a RangeError beyond Date's range
  if (!/^\d{4}-/.test(iso)) throw new RangeError(`date outside years 0000-9999 (epoch day ${day})`);
  return iso.slice(0, 10);
}

/** The calendar date (YYYY-MM-DD) of an instant in Brasília time, UTC-03:00. */
export function brasiliaDate(at: Date): string {
  return fromEpochDay(Math.floor((at.getTime() + BRASILIA_OFFSET_MS) / DAY_MS));
}

/** 0 Sunday … 6 Saturday. Epoch day 0 (1970-01-01) was a Thursday. */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

export function isBusinessDay(day: number): boolean {
  const w = weekday(day);
  return w !== 0 && w !== 6;
}

/** The day itself when it is a business day, else the Monday after. */
export function nextBusinessDay(day: number): number {
  const w = weekday(day);
  return w === 6 ? day + 2 : w === 0 ? day + 1 : day;
}

/** Business days up to and including `day`, counted from an arbitrary origin (only differences matter). */
function businessDaysThrough(day: number): number {
  const fromMonday = day - 4 + 1; // epoch day 4 (1970-01-05) was a Monday
  const weeks = Math.floor(fromMonday / 7);
  return weeks * 5 + Math.min(fromMonday - weeks * 7, 5);
}

/** Business days d with from < d ≤ to, in constant time (0 when to ≤ from). */
export function businessDaysIn(from: number, to: number): number {
  return to <= from ? 0 : businessDaysThrough(to) - businessDaysThrough(from);
}
