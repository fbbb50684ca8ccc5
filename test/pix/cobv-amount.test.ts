// suite: database-independent
/** Unit tests of the due-charge amount and date rules (src/pix/cobv/amount.ts, calendar.ts). No server. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dueAmountOn, lastPayableDate, type DueAmount } from '../../src/pix/cobv/amount.ts';
import { fromEpochDay, isBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import type { CobVBody, CobVValor } from '../../src/pix/cobv/schemas.ts';

/** Due Friday 2024-03-15, 100.00 unless told. */
function body(valor: Partial<CobVValor> = {}, calendario: Partial<CobVBody['calendario']> = {}): CobVBody {
  return {
    calendario: { dataDeVencimento: '2024-03-15', validadeAposVencimento: 30, ...calendario },
    devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
    valor: { original: '100.00', ...valor },
    chave: 'chave',
  };
}

type Expected = Partial<DueAmount>;
const ZERO: DueAmount = {
  originalCents: 10000,
  multaCents: 0,
  jurosCents: 0,
  abatimentoCents: 0,
  descontoCents: 0,
  finalCents: 10000,
};

describe('dueAmountOn', () => {
  const cases: [string, CobVBody, string, Expected][] = [
    // No modalities: the original on any day.
    ['plain, before', body(), '2024-03-01', {}],
    ['plain, after', body(), '2024-04-01', {}],

    // Multa: only strictly after the due date.
    ['multa fixed, before', body({ multa: { modalidade: 1, valorPerc: '2.50' } }), '2024-03-14', {}],
    ['multa fixed, on due date', body({ multa: { modalidade: 1, valorPerc: '2.50' } }), '2024-03-15', {}],
    [
      'multa fixed, day after',
      body({ multa: { modalidade: 1, valorPerc: '2.50' } }),
      '2024-03-16',
      { multaCents: 250, finalCents: 10250 },
    ],
    [
      'multa 2%, after',
      body({ multa: { modalidade: 2, valorPerc: '2.00' } }),
      '2024-03-20',
      { multaCents: 200, finalCents: 10200 },
    ],
    [
      'multa 1.5% of 123.45 = 1.85175 rounds to 1.85',
      body({ original: '123.45', multa: { modalidade: 2, valorPerc: '1.50' } }),
      '2024-03-20',
      { originalCents: 12345, multaCents: 185, finalCents: 12530 },
    ],
    [
      'multa 2% of 0.25 = 0.5 cent rounds half-up to 1',
      body({ original: '0.25', multa: { modalidade: 2, valorPerc: '2.00' } }),
      '2024-03-20',
      { originalCents: 25, multaCents: 1, finalCents: 26 },
    ],
    [
      'multa 1% of 0.25 = 0.25 cent rounds to 0',
      body({ original: '0.25', multa: { modalidade: 2, valorPerc: '1.00' } }),
      '2024-03-20',
      { originalCents: 25, multaCents: 0, finalCents: 25 },
    ],

    // Juros, calendar days (Fri 15 → Mon 18 is 3 days late).
    ['juros 1 (0.10/day), on due date', body({ juros: { modalidade: 1, valorPerc: '0.10' } }), '2024-03-15', {}],
    [
      'juros 1 (0.10/day), 3 days',
      body({ juros: { modalidade: 1, valorPerc: '0.10' } }),
      '2024-03-18',
      { jurosCents: 30, finalCents: 10030 },
    ],
    [
      'juros 2 (1%/day), 3 days',
      body({ juros: { modalidade: 2, valorPerc: '1.00' } }),
      '2024-03-18',
      { jurosCents: 300, finalCents: 10300 },
    ],
    [
      'juros 3 (3%/month = 0.1%/day), 3 days',
      body({ juros: { modalidade: 3, valorPerc: '3.00' } }),
      '2024-03-18',
      { jurosCents: 30, finalCents: 10030 },
    ],
    [
      'juros 4 (36%/year = 0.1%/day), 3 days',
      body({ juros: { modalidade: 4, valorPerc: '36.00' } }),
      '2024-03-18',
      { jurosCents: 30, finalCents: 10030 },
    ],
    [
      'juros 3 (1%/month), 1 day = 3.33 cents',
      body({ juros: { modalidade: 3, valorPerc: '1.00' } }),
      '2024-03-16',
      { jurosCents: 3, finalCents: 10003 },
    ],
    [
      'juros 3 (1%/month), 2 days = 6.67 cents: rounded once, not 3+3',
      body({ juros: { modalidade: 3, valorPerc: '1.00' } }),
      '2024-03-17',
      { jurosCents: 7, finalCents: 10007 },
    ],
    [
      'juros 3 (1%/month), 30 days = 1%',
      body({ juros: { modalidade: 3, valorPerc: '1.00' } }),
      '2024-04-14',
      { jurosCents: 100, finalCents: 10100 },
    ],
    [
      'juros 2 with more decimals (0.0333%/day), 3 days = 9.99 cents',
      body({ juros: { modalidade: 2, valorPerc: '0.0333' } }),
      '2024-03-18',
      { jurosCents: 10, finalCents: 10010 },
    ],

    // Juros, business days: Sat and Sun do not count (Fri 15 → Mon 18 is 1 business day).
    ['juros 5 (0.10/business day), Saturday', body({ juros: { modalidade: 5, valorPerc: '0.10' } }), '2024-03-16', {}],
    [
      'juros 5 (0.10/business day), Monday',
      body({ juros: { modalidade: 5, valorPerc: '0.10' } }),
      '2024-03-18',
      { jurosCents: 10, finalCents: 10010 },
    ],
    [
      'juros 5, two weeks later = 10 business days',
      body({ juros: { modalidade: 5, valorPerc: '0.10' } }),
      '2024-03-29',
      { jurosCents: 100, finalCents: 10100 },
    ],
    [
      'juros 6 (1%/business day), Monday',
      body({ juros: { modalidade: 6, valorPerc: '1.00' } }),
      '2024-03-18',
      { jurosCents: 100, finalCents: 10100 },
    ],
    [
      'juros 7 (2.10%/month = 0.1%/business day), Monday',
      body({ juros: { modalidade: 7, valorPerc: '2.10' } }),
      '2024-03-18',
      { jurosCents: 10, finalCents: 10010 },
    ],
    [
      'juros 8 (25.20%/year = 0.1%/business day), Monday',
      body({ juros: { modalidade: 8, valorPerc: '25.20' } }),
      '2024-03-18',
      { jurosCents: 10, finalCents: 10010 },
    ],
    [
      'multa applies on a Saturday even with no business day of juros',
      body({ multa: { modalidade: 1, valorPerc: '1.00' }, juros: { modalidade: 5, valorPerc: '0.10' } }),
      '2024-03-16',
      { multaCents: 100, finalCents: 10100 },
    ],

    // Abatimento: always.
    [
      'abatimento fixed, before',
      body({ abatimento: { modalidade: 1, valorPerc: '10.00' } }),
      '2024-03-01',
      { abatimentoCents: 1000, finalCents: 9000 },
    ],
    [
      'abatimento fixed, after',
      body({ abatimento: { modalidade: 1, valorPerc: '10.00' } }),
      '2024-04-01',
      { abatimentoCents: 1000, finalCents: 9000 },
    ],
    [
      'abatimento 12.5%',
      body({ abatimento: { modalidade: 2, valorPerc: '12.50' } }),
      '2024-03-15',
      { abatimentoCents: 1250, finalCents: 8750 },
    ],

    // Desconto with fixed dates: the earliest tier whose date is not past; a Sunday tier lasts until Monday.
    ...(
      [
        ['2024-03-01', 1000],
        ['2024-03-05', 1000],
        ['2024-03-06', 500],
        ['2024-03-10', 500],
        ['2024-03-11', 500],
        ['2024-03-12', 0],
        ['2024-03-15', 0],
      ] as const
    ).map(([day, cents]): [string, CobVBody, string, Expected] => [
      `desconto 1 (10.00 until 03-05, 5.00 until Sunday 03-10), paid ${day}`,
      body({
        desconto: {
          modalidade: 1,
          descontoDataFixa: [
            { data: '2024-03-10', valorPerc: '5.00' },
            { data: '2024-03-05', valorPerc: '10.00' },
          ],
        },
      }),
      day,
      { descontoCents: cents, finalCents: 10000 - cents },
    ]),
    [
      'desconto 2 (5% until due date), on due date',
      body({ desconto: { modalidade: 2, descontoDataFixa: [{ data: '2024-03-15', valorPerc: '5.00' }] } }),
      '2024-03-15',
      { descontoCents: 500, finalCents: 9500 },
    ],
    [
      'desconto 2, after due date: none, multa instead',
      body({
        multa: { modalidade: 2, valorPerc: '2.00' },
        desconto: { modalidade: 2, descontoDataFixa: [{ data: '2024-03-15', valorPerc: '5.00' }] },
      }),
      '2024-03-18',
      { multaCents: 200, finalCents: 10200 },
    ],

    // Desconto per day of anticipation.
    [
      'desconto 3 (0.50/calendar day), 3 days early',
      body({ desconto: { modalidade: 3, valorPerc: '0.50' } }),
      '2024-03-12',
      { descontoCents: 150, finalCents: 9850 },
    ],
    ['desconto 3, on due date', body({ desconto: { modalidade: 3, valorPerc: '0.50' } }), '2024-03-15', {}],
    [
      'desconto 4 (0.50/business day), a week early = 5 business days',
      body({ desconto: { modalidade: 4, valorPerc: '0.50' } }),
      '2024-03-08',
      { descontoCents: 250, finalCents: 9750 },
    ],
    [
      'desconto 4, paid Saturday before a Monday due date = 1 business day',
      body({ desconto: { modalidade: 4, valorPerc: '0.50' } }, { dataDeVencimento: '2024-03-18' }),
      '2024-03-16',
      { descontoCents: 50, finalCents: 9950 },
    ],
    [
      'desconto 5 (1%/calendar day), 3 days early',
      body({ desconto: { modalidade: 5, valorPerc: '1.00' } }),
      '2024-03-12',
      { descontoCents: 300, finalCents: 9700 },
    ],
    [
      'desconto 6 (1%/business day), a week early',
      body({ desconto: { modalidade: 6, valorPerc: '1.00' } }),
      '2024-03-08',
      { descontoCents: 500, finalCents: 9500 },
    ],
    [
      'desconto 5 on 0.99 (0.5%/day, 1 day) = 0.495 cent rounds to 0',
      body({ original: '0.99', desconto: { modalidade: 5, valorPerc: '0.50' } }),
      '2024-03-14',
      { originalCents: 99, finalCents: 99 },
    ],

    // Caps: desconto never takes more than abatimento leaves; the final is never below zero.
    [
      'desconto 3 accumulating past the original is capped',
      body({ desconto: { modalidade: 3, valorPerc: '10.00' } }),
      '2024-01-01',
      { descontoCents: 10000, finalCents: 0 },
    ],
    [
      'desconto capped at what abatimento leaves',
      body({ abatimento: { modalidade: 1, valorPerc: '10.00' }, desconto: { modalidade: 3, valorPerc: '10.00' } }),
      '2024-01-01',
      { abatimentoCents: 1000, descontoCents: 9000, finalCents: 0 },
    ],

    // Everything at once.
    [
      'combined, 30 days late',
      body({
        multa: { modalidade: 2, valorPerc: '2.00' },
        juros: { modalidade: 3, valorPerc: '1.00' },
        abatimento: { modalidade: 1, valorPerc: '5.00' },
        desconto: { modalidade: 3, valorPerc: '0.10' },
      }),
      '2024-04-14',
      { multaCents: 200, jurosCents: 100, abatimentoCents: 500, finalCents: 9800 },
    ],
    [
      'combined, 5 days early',
      body({
        multa: { modalidade: 2, valorPerc: '2.00' },
        juros: { modalidade: 3, valorPerc: '1.00' },
        abatimento: { modalidade: 1, valorPerc: '5.00' },
        desconto: { modalidade: 3, valorPerc: '0.10' },
      }),
      '2024-03-10',
      { abatimentoCents: 500, descontoCents: 50, finalCents: 9450 },
    ],

    // A due date on a weekend moves to Monday, and so do multa, juros and desconto.
    [
      'due Saturday, paid Monday: on time, desconto kept',
      body(
        {
          multa: { modalidade: 1, valorPerc: '1.00' },
          desconto: { modalidade: 1, descontoDataFixa: [{ data: '2024-03-16', valorPerc: '3.00' }] },
        },
        { dataDeVencimento: '2024-03-16' },
      ),
      '2024-03-18',
      { descontoCents: 300, finalCents: 9700 },
    ],
    [
      'due Saturday, paid Tuesday: 1 day late',
      body(
        { multa: { modalidade: 1, valorPerc: '1.00' }, juros: { modalidade: 1, valorPerc: '0.10' } },
        { dataDeVencimento: '2024-03-16' },
      ),
      '2024-03-19',
      { multaCents: 100, jurosCents: 10, finalCents: 10110 },
    ],
  ];

  for (const [name, b, day, expected] of cases) {
    it(name, () => {
      const got = dueAmountOn(b, day);
      assert.deepEqual(got, { ...ZERO, ...expected });
      assert.equal(
        got.finalCents,
        Math.max(0, got.originalCents + got.multaCents + got.jurosCents - got.abatimentoCents - got.descontoCents),
        'components add up',
      );
    });
  }

  it('refuses an amount the Pix format cannot write', () => {
    assert.throws(
      () => dueAmountOn(body({ original: '9999999999.99', multa: { modalidade: 2, valorPerc: '1.00' } }), '2024-04-01'),
      RangeError,
    );
    assert.equal(
      dueAmountOn(body({ original: '9999999999.99', multa: { modalidade: 2, valorPerc: '1.00' } }), '2024-03-15')
        .finalCents,
      999999999999,
    );
  });

  it('refuses a payment date that is not a calendar date', () => {
    for (const bad of ['2024-02-30', '2024-3-01', '2024-03-01T00:00:00Z', ''])
      assert.throws(() => dueAmountOn(body(), bad), RangeError, bad);
  });
});

describe('lastPayableDate', () => {
  // Bacen CobDataDeVencimento examples A, F and G (no holidays in them).
  const cases: [string, string, number, string][] = [
    ['Bacen A: Tue + 4 lands on Sat, moves to Mon', '2020-10-20', 4, '2020-10-26'],
    ['Bacen F: Fri + 5 is a Wednesday', '2021-08-27', 5, '2021-09-01'],
    ['Bacen G: due Sat moves to Mon, + 5 lands on Sat, moves to Mon', '2021-08-28', 5, '2021-09-06'],
    ['weekday, validade 0: the due date itself', '2024-03-15', 0, '2024-03-15'],
    ['due Sunday, validade 0: Monday', '2024-03-17', 0, '2024-03-18'],
    ['default 30 days from Fri 2024-03-15 is Sun, moves to Mon', '2024-03-15', 30, '2024-04-15'],
    ['across a leap day', '2024-02-28', 1, '2024-02-29'],
    ['across a year', '2024-12-31', 1, '2025-01-01'],
    // Bacen B: 2020-12-25 is a holiday; with no holiday calendar it is an ordinary Friday.
    ['Bacen B without holidays: Fri, validade 0', '2020-12-25', 0, '2020-12-25'],
  ];
  for (const [name, due, validade, expected] of cases) {
    it(name, () =>
      assert.equal(lastPayableDate(body({}, { dataDeVencimento: due, validadeAposVencimento: validade })), expected),
    );
  }

  it('is never a weekend and never before dataDeVencimento + validadeAposVencimento', () => {
    const start = toEpochDay('2024-01-01');
    for (let d = start; d < start + 14; d++) {
      for (let v = 0; v < 10; v++) {
        const last = toEpochDay(
          lastPayableDate(body({}, { dataDeVencimento: fromEpochDay(d), validadeAposVencimento: v })),
        );
        assert.ok(isBusinessDay(last));
        assert.ok(last >= d + v && last <= d + v + 4, `${fromEpochDay(d)} + ${v}`);
      }
    }
  });

  it('throws RangeError past year 9999', () => {
    assert.throws(
      () => lastPayableDate(body({}, { dataDeVencimento: '9999-12-30', validadeAposVencimento: 5 })),
      RangeError,
    );
    assert.throws(() => lastPayableDate(body({}, { validadeAposVencimento: 2147483647 })), RangeError);
  });
});
