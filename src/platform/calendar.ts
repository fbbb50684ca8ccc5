/**
 * The one calendar: Brasília time, calendar dates as "epoch days", business days and national holidays.
 * Every feature that needs today's date in Brasília, the instants a Brasília day spans, a date written for a
 * reader, or a business-day count asks this module (docs/architecture.md, "The calendar").
 *
 * Time zone: Brasília is UTC−03:00 all year since daylight saving time ended on 2019-02-17 (Decreto 9.772/2019).
 * pixd computes Brasília time with that fixed offset, not with the tz database: it is exact for every instant
 * since then (test/platform/calendar.test.ts checks it against Intl's America/Sao_Paulo), costs an addition on
 * the settlement path, and does not move if a host's tz data is old. Instants before 2019-02-17 inside a
 * summer-time period read an hour early; pixd has no such instants (charges, clocks and reports are of now). A
 * return of daylight saving time would change `BRASILIA_OFFSET_MS` into a lookup here and nowhere else.
 *
 * Dates: a date is a `YYYY-MM-DD` string at the edges and an epoch day (whole days since 1970-01-01) inside, so
 * adding days, comparing and counting business days involve no time zone.
 */

export const DAY_MS = 86_400_000;
/** Brasília's offset from UTC since 2019-02-17 (see the module comment). */
export const BRASILIA_OFFSET_MS = -3 * 3_600_000;
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

/** The instant as UTC ISO text shifted to Brasília's wall clock (`YYYY-MM-DDTHH:MM:SS.mmmZ`, the Z a lie). */
const brasiliaWallClock = (at: Date) => new Date(at.getTime() + BRASILIA_OFFSET_MS).toISOString();

/** The calendar date (YYYY-MM-DD) of an instant in Brasília. */
export function brasiliaDate(at: Date): string {
  return fromEpochDay(Math.floor((at.getTime() + BRASILIA_OFFSET_MS) / DAY_MS));
}

/** `YYYY-MM-DD HH:MM:SS` on Brasília's clock (the billing interface's date-times). */
export const brasiliaDateTime = (at: Date) => brasiliaWallClock(at).slice(0, 19).replace('T', ' ');

/** `dd/mm/aaaa, hh:mm` on Brasília's clock: what a payer reads on a page (pt-BR's short date and time). */
export function brasiliaDisplayDateTime(at: Date): string {
  const wall = brasiliaWallClock(at);
  return `${brazilianDate(wall.slice(0, 10))}, ${wall.slice(11, 16)}`;
}

/** A calendar date (YYYY-MM-DD) as dd/mm/aaaa. */
export const brazilianDate = (isoDate: string) => isoDate.split('-').reverse().join('/');

/**
 * The instant of a date and wall-clock time in Brasília (`HH:MM:SS.mmm`); an invalid Date when the text does not
 * parse. Lenient as Date.parse is (30 February is 2 March): for query bounds, not for dates a charge keeps.
 */
export const brasiliaInstant = (date: string, time: string) =>
  new Date(Date.parse(`${date}T${time}Z`) - BRASILIA_OFFSET_MS);

/** The instant a Brasília date begins (its 00:00). */
export const brasiliaDayStart = (date: string) => new Date(toEpochDay(date) * DAY_MS - BRASILIA_OFFSET_MS);

/** A Brasília calendar day as instants: [its 00:00, the next day's 00:00). */
export function brasiliaDay(date: string): { start: Date; end: Date } {
  const start = brasiliaDayStart(date);
  return { start, end: new Date(start.getTime() + DAY_MS) };
}

/** 0 Sunday … 6 Saturday. Epoch day 0 (1970-01-01) was a Thursday. */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/**
 * Business days are Monday to Friday: national holidays are not skipped yet (docs/cobv.md, "Dates"; they are
 * known below, for the day the rule takes them).
 */
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

/** Easter Sunday of a Gregorian year (Meeus/Jones/Butcher, the "anonymous Gregorian" algorithm). */
export function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const dayOfMonth = ((h + l - 7 * m + 114) % 31) + 1;
  return Date.UTC(year, month - 1, dayOfMonth) / DAY_MS;
}

/** Fixed-date national holidays (Lei 662/1949, 6.802/1980, 10.607/2002; 20 November by Lei 14.759/2023). */
const FIXED_HOLIDAYS: readonly { monthDay: string; name: string; fromYear?: number }[] = [
  { monthDay: '01-01', name: 'Confraternização Universal' },
  { monthDay: '04-21', name: 'Tiradentes' },
  { monthDay: '05-01', name: 'Dia do Trabalho' },
  { monthDay: '09-07', name: 'Independência do Brasil' },
  { monthDay: '10-12', name: 'Nossa Senhora Aparecida' },
  { monthDay: '11-02', name: 'Finados' },
  { monthDay: '11-15', name: 'Proclamação da República' },
  { monthDay: '11-20', name: 'Dia Nacional de Zumbi e da Consciência Negra', fromYear: 2024 },
  { monthDay: '12-25', name: 'Natal' },
];

/** The days, relative to Easter Sunday, on which the financial system does not open. */
const EASTER_HOLIDAYS: readonly { daysFromEaster: number; name: string }[] = [
  { daysFromEaster: -48, name: 'Carnaval (segunda-feira)' },
  { daysFromEaster: -47, name: 'Carnaval (terça-feira)' },
  { daysFromEaster: -2, name: 'Sexta-feira da Paixão' },
  { daysFromEaster: 60, name: 'Corpus Christi' },
];

export interface Holiday {
  date: string;
  name: string;
}

/**
 * The national holidays of a year as the financial system's calendar has them (the fixed ones above, plus
 * Carnaval, Good Friday and Corpus Christi from Easter), in date order.
 */
export function nationalHolidays(year: number): Holiday[] {
  const yearText = String(year).padStart(4, '0');
  const easter = easterSunday(year);
  return [
    ...FIXED_HOLIDAYS.filter((h) => year >= (h.fromYear ?? 0)).map((h) => ({
      date: `${yearText}-${h.monthDay}`,
      name: h.name,
    })),
    ...EASTER_HOLIDAYS.map((h) => ({ date: fromEpochDay(easter + h.daysFromEaster), name: h.name })),
  ].sort((x, y) => x.date.localeCompare(y.date));
}

/** Whether an epoch day is a national holiday. */
export function isNationalHoliday(day: number): boolean {
  const date = fromEpochDay(day);
  return nationalHolidays(Number(date.slice(0, 4))).some((h) => h.date === date);
}
