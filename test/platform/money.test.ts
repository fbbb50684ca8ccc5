// suite: database-independent
/**
 * The percentage and rounding helpers of src/platform/money.ts against the formulas they replaced: billing's
 * `Number` ones (billing/shared/money.ts), kept here verbatim, and the split's largest-remainder division
 * (pix/split/shares.ts, moved unchanged), restated here from its rule. The same result, bit for bit, over every
 * input where the old formula computed exactly. Billing's `Number` products passed 2^53 only for amounts of billions of
 * reais; there the float rounded and the helper is exact (last case).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  PERCENT_SCALE,
  allocateByPercent,
  divideHalfUp,
  percentFloor,
  percentHalfUp,
} from '../../src/platform/money.ts';

const OLD = {
  divideHalfUp: (numerator: number, denominator: number) =>
    Math.floor((2 * numerator + denominator) / (2 * denominator)),
  percentHalfUp: (cents: number, basisPoints: number) => OLD.divideHalfUp(cents * basisPoints, 10_000),
  percentFloor: (cents: number, basisPoints: number) => Math.floor((cents * basisPoints) / 10_000),
  /** The split's division (moved unchanged), restated as its rule: floors, then one cent each to the largest remainders, ties to the lower position. */
  percentShares(amountCents: number, percentHundredths: readonly number[]): number[] {
    const parts = percentHundredths.map((p, position) => {
      const product = BigInt(amountCents) * BigInt(p);
      return { position, cents: product / 10_000n, remainder: product % 10_000n };
    });
    const left = BigInt(amountCents) - parts.reduce((total, part) => total + part.cents, 0n);
    const order = [...parts].sort((a, b) =>
      a.remainder === b.remainder ? a.position - b.position : a.remainder > b.remainder ? -1 : 1,
    );
    for (const part of order.slice(0, Number(left))) part.cents += 1n;
    return parts.map((part) => Number(part.cents));
  },
};

const NEW = { divideHalfUp, percentHalfUp, percentFloor };
const RUNS = 20_000;
/** Amounts over every magnitude up to `max`, and the small ones where rounding ties are common. */
const cents = (max: number) =>
  fc.oneof(
    fc.integer({ min: 0, max: Math.min(max, 10_000) }),
    fc.integer({ min: 0, max }),
    fc.double({ min: 0, max: Math.log10(max + 1), noNaN: true }).map((e) => Math.min(max, Math.floor(10 ** e))),
  );
/** Percentages in hundredths: billing's (fee 349, interest 199 × n up to 12, discounts and shares up to 100 %). */
const hundredths = fc.oneof(
  fc.constantFrom(0, 1, 199, 349, 2388, 5000, 9999, 10_000),
  fc.integer({ min: 0, max: 30_000 }),
);
/** The largest amount for which the old `Number` formula's intermediate stayed a safe integer. */
const safeFor = (factor: number) => Math.floor((Number.MAX_SAFE_INTEGER - PERCENT_SCALE) / Math.max(1, 2 * factor));

describe('money: percentages and rounding', () => {
  const sameAsOld = (name: keyof typeof OLD & keyof typeof NEW, arbitrary: fc.Arbitrary<[number, number]>) =>
    it(`${name} equals the old billing formula wherever it was exact`, () => {
      fc.assert(
        fc.property(arbitrary, ([a, b]) => NEW[name](a, b) === OLD[name](a, b)),
        { numRuns: RUNS },
      );
    });
  const percentInputs = hundredths.chain((p) => fc.tuple(cents(safeFor(p)), fc.constant(p)));
  sameAsOld('percentHalfUp', percentInputs);
  sameAsOld('percentFloor', percentInputs);
  sameAsOld(
    'divideHalfUp',
    fc.integer({ min: 1, max: 1_000_000 }).chain((d) => fc.tuple(cents(safeFor(1)), fc.constant(d))),
  );

  it('allocateByPercent equals the old split division over every Pix amount and share set', () => {
    const shareSet = fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 0, maxLength: 20 }).map((cuts) => {
      const points = [0, ...cuts.sort((a, b) => a - b), PERCENT_SCALE];
      return points.slice(1).map((p, i) => p - points[i]);
    });
    fc.assert(
      fc.property(cents(999_999_999_999), shareSet, (amount, shares) => {
        const got = allocateByPercent(amount, shares);
        assert.deepEqual(got, OLD.percentShares(amount, shares));
        return got.reduce((a, b) => a + b, 0) === amount;
      }),
      { numRuns: RUNS },
    );
  });

  it('stays exact where the old Number formula rounded a float (amounts of billions of reais)', () => {
    // R$ 3,277,001,578,956.72 × 47.17 % is 154,576,164,479,388.4824 cents: half-up, …388 (the old float product gave …389).
    const exact = (c: number, p: number) => (2n * BigInt(c) * BigInt(p) + 10_000n) / 20_000n;
    assert.equal(BigInt(percentHalfUp(327_700_157_895_672, 4717)), exact(327_700_157_895_672, 4717));
    assert.equal(BigInt(percentFloor(999_999_999_999_999, 9999)), (999_999_999_999_999n * 9999n) / 10_000n);
  });
});
