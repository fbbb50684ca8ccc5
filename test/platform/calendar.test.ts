// suite: database-independent
/**
 * The one calendar (src/platform/calendar.ts) against independent oracles: Easter by Gauss's algorithm (the
 * module uses Meeus/Jones/Butcher), business days by a day-by-day walk over JavaScript's own weekday, Brasília
 * time by Intl's America/Sao_Paulo (the module uses a fixed UTC−03:00, exact since daylight saving ended on
 * 2019-02-17; before that the two differ in summer, which the last case pins as the documented choice).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DAY_MS,
  brasiliaDate,
  brasiliaDateTime,
  brasiliaDay,
  brasiliaDayStart,
  brasiliaInstant,
  brasiliaDisplayDateTime,
  businessDaysIn,
  easterSunday,
  fromEpochDay,
  isBusinessDay,
  isNationalHoliday,
  nationalHolidays,
  nextBusinessDay,
  toEpochDay,
  weekday,
} from '../../src/platform/calendar.ts';

/** Gauss's Easter algorithm for the Gregorian calendar, with its two exceptions (26 → 19 April, 25 → 18 April). */
function gaussEaster(year: number): string {
  const a = year % 19;
  const b = year % 4;
  const c = year % 7;
  const k = Math.floor(year / 100);
  const p = Math.floor((13 + 8 * k) / 25);
  const q = Math.floor(k / 4);
  const m = (15 - p + k - q) % 30;
  const n = (4 + k - q) % 7;
  const d = (19 * a + m) % 30;
  const e = (2 * b + 4 * c + 6 * d + n) % 7;
  let march = 22 + d + e;
  if (d === 29 && e === 6)
    march = 50; // 19 April
  else if (d === 28 && e === 6 && (11 * m + 11) % 30 < 19) march = 49; // 18 April
  const month = march > 31 ? 4 : 3;
  const day = march > 31 ? march - 31 : march;
  return `${String(year).padStart(4, '0')}-0${month}-${String(day).padStart(2, '0')}`;
}

/** JavaScript's own weekday of an epoch day, not the module's arithmetic. */
const jsWeekday = (day: number) => new Date(day * DAY_MS).getUTCDay();
const walkIsBusinessDay = (day: number) => jsWeekday(day) !== 0 && jsWeekday(day) !== 6;

const zoned = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Sao_Paulo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
/** `YYYY-MM-DD HH:MM:SS` in America/Sao_Paulo per the tz database. */
function intlDateTime(at: Date): string {
  const part = Object.fromEntries(zoned.formatToParts(at).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second}`;
}

const SINCE_DST_ENDED = Date.parse('2019-02-17T02:00:00Z'); // 00:00 of 17 Feb 2019 in BRST (UTC−02:00)
const instantsSince2019 = fc.date({
  min: new Date(SINCE_DST_ENDED),
  max: new Date('2100-12-31T23:59:59Z'),
  noInvalidDate: true,
});
const epochDays = fc.integer({ min: toEpochDay('1900-01-01'), max: toEpochDay('2200-12-31') });

describe('calendar: Easter and national holidays', () => {
  it('Easter Sunday agrees with Gauss’s algorithm for every Gregorian year (1583–9999)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1583, max: 9999 }),
        (year) => fromEpochDay(easterSunday(year)) === gaussEaster(year),
      ),
      { numRuns: 2000 },
    );
    for (const [year, date] of [
      [1818, '1818-03-22'],
      [1943, '1943-04-25'],
      [2019, '2019-04-21'],
      [2024, '2024-03-31'],
      [2025, '2025-04-20'],
      [2285, '2285-03-22'],
    ] as const)
      assert.equal(fromEpochDay(easterSunday(year)), date, String(year));
  });

  it('a year’s holidays are its days, in order, on the weekdays Easter puts them (two may share a day)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1900, max: 9999 }), (year) => {
        const holidays = nationalHolidays(year);
        const dates = holidays.map((h) => h.date);
        assert.equal(new Set(holidays.map((h) => h.name)).size, year >= 2024 ? 13 : 12);
        assert.ok(dates.every((d) => d.startsWith(`${String(year).padStart(4, '0')}-`)));
        assert.deepEqual(dates, [...dates].sort());
        const weekdayOf = (name: string) => weekday(toEpochDay(holidays.find((h) => h.name === name)!.date));
        assert.equal(weekdayOf('Carnaval (segunda-feira)'), 1);
        assert.equal(weekdayOf('Carnaval (terça-feira)'), 2);
        assert.equal(weekdayOf('Sexta-feira da Paixão'), 5);
        assert.equal(weekdayOf('Corpus Christi'), 4);
        for (const d of dates) assert.ok(isNationalHoliday(toEpochDay(d)), d);
      }),
      { numRuns: 300 },
    );
  });

  it('2025 as the financial calendar has it', () => {
    assert.deepEqual(
      nationalHolidays(2025).map((h) => h.date),
      [
        '2025-01-01',
        '2025-03-03',
        '2025-03-04',
        '2025-04-18',
        '2025-04-21',
        '2025-05-01',
        '2025-06-19',
        '2025-09-07',
        '2025-10-12',
        '2025-11-02',
        '2025-11-15',
        '2025-11-20',
        '2025-12-25',
      ],
    );
    assert.deepEqual(
      nationalHolidays(2000)
        .filter((h) => h.date === '2000-04-21')
        .map((h) => h.name),
      ['Tiradentes', 'Sexta-feira da Paixão'],
    );
    assert.ok(!isNationalHoliday(toEpochDay('2023-11-20')), '20 November is national from 2024');
    assert.ok(!isNationalHoliday(toEpochDay('2025-03-05')), 'Ash Wednesday is not');
  });
});

describe('calendar: business days', () => {
  it('weekdays agree with JavaScript’s', () => {
    fc.assert(fc.property(epochDays, (day) => weekday(day) === jsWeekday(day)));
  });

  it('counts business days in (from, to] like a day-by-day walk', () => {
    const walk = (from: number, to: number) => {
      let n = 0;
      for (let d = from + 1; d <= to; d++) if (walkIsBusinessDay(d)) n++;
      return n;
    };
    fc.assert(
      fc.property(epochDays, fc.integer({ min: -10, max: 400 }), (from, span) => {
        assert.equal(businessDaysIn(from, from + span), walk(from, from + span));
      }),
      { numRuns: 500 },
    );
    assert.equal(businessDaysIn(toEpochDay('2024-01-01'), toEpochDay('2025-01-01')), 262);
  });

  it('the next business day is the first day from it on that the walk calls one', () => {
    fc.assert(
      fc.property(epochDays, (day) => {
        let walked = day;
        while (!walkIsBusinessDay(walked)) walked++;
        assert.equal(nextBusinessDay(day), walked);
        assert.equal(isBusinessDay(day), walkIsBusinessDay(day));
      }),
    );
  });

  it('round-trips dates and refuses impossible ones', () => {
    fc.assert(fc.property(epochDays, (day) => toEpochDay(fromEpochDay(day)) === day));
    assert.equal(toEpochDay('1970-01-01'), 0);
    assert.throws(() => toEpochDay('2023-02-29'), RangeError);
    assert.throws(() => toEpochDay('2025-02-30'), RangeError);
  });
});

describe('calendar: Brasília time', () => {
  it('dates and date-times agree with the tz database since daylight saving ended', () => {
    fc.assert(
      fc.property(instantsSince2019, (at) => {
        const expected = intlDateTime(at);
        assert.equal(brasiliaDateTime(at), expected);
        assert.equal(brasiliaDate(at), expected.slice(0, 10));
      }),
      { numRuns: 1000 },
    );
  });

  it('the date-time a payer reads is pt-BR’s short date and time in America/Sao_Paulo', () => {
    fc.assert(
      fc.property(instantsSince2019, (at) => {
        const intl = at.toLocaleString('pt-BR', {
          timeZone: 'America/Sao_Paulo',
          dateStyle: 'short',
          timeStyle: 'short',
        });
        assert.equal(brasiliaDisplayDateTime(at), intl);
      }),
      { numRuns: 300 },
    );
  });

  it('a Brasília day spans from its 00:00 to the next day’s', () => {
    fc.assert(
      fc.property(fc.integer({ min: toEpochDay('2019-02-18'), max: toEpochDay('2100-12-31') }), (day) => {
        const date = fromEpochDay(day);
        const { start, end } = brasiliaDay(date);
        assert.equal(start.getTime(), brasiliaDayStart(date).getTime());
        assert.equal(intlDateTime(start), `${date} 00:00:00`);
        assert.equal(brasiliaDate(new Date(start.getTime() - 1)), fromEpochDay(day - 1));
        assert.equal(brasiliaDate(new Date(end.getTime() - 1)), date);
        assert.equal(brasiliaDate(end), fromEpochDay(day + 1));
      }),
    );
    assert.equal(brasiliaInstant('2024-03-16', '00:00:00.000').getTime(), brasiliaDayStart('2024-03-16').getTime());
    assert.equal(brasiliaInstant('2024-03-16', '23:59:59.999').toISOString(), '2024-03-17T02:59:59.999Z');
    assert.ok(Number.isNaN(brasiliaInstant('2024-13-01', '00:00:00.000').getTime()));
    assert.equal(brasiliaDate(new Date('2024-03-16T02:59:59.999Z')), '2024-03-15');
    assert.equal(brasiliaDate(new Date('2024-03-16T03:00:00.000Z')), '2024-03-16');
  });

  it('before 2019, in summer time, the fixed offset reads an hour early (the documented choice)', () => {
    const summer2018 = new Date('2018-12-01T02:30:00Z');
    assert.equal(intlDateTime(summer2018), '2018-12-01 00:30:00');
    assert.equal(brasiliaDateTime(summer2018), '2018-11-30 23:30:00');
    const winter2018 = new Date('2018-07-01T12:00:00Z');
    assert.equal(brasiliaDateTime(winter2018), intlDateTime(winter2018));
  });
});
