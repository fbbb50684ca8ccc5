/**
 * The percentage and rounding helpers of src/platform/money.ts against the formulas they replaced (billing's
 * `Number` ones in billing/shared/money.ts, the split's BigInt largest-remainder division in
 * pix/split/shares.ts), kept here verbatim as the oracle: the same result, bit for bit, over every input where
 * the old formula computed exactly. Billing's `Number` products passed 2^53 only for amounts of billions of
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
  percentShares(amountCents: number, percentHundredths: readonly number[]): number[] {
    const amount = BigInt(amountCents);
    const total = BigInt(10_000);
    const floors = percentHundredths.map((p) => (amount * BigInt(p)) / total);
    const remainders = percentHundredths.map((p) => (amount * BigInt(p)) % total);
    let leftCents = amount - floors.reduce((a, b) => a + b, 0n);
    const byLargestRemainder = percentHundredths
      .map((_, i) => i)
      .sort((a, b) => (remainders[b] > remainders[a] ? 1 : remainders[b] < remainders[a] ? -1 : a - b));
    for (const i of byLargestRemainder) {
      if (leftCents === 0n) break;
      floors[i] += 1n;
      leftCents -= 1n;
    }
    return floors.map(Number);
  },
};

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
  it('percentHalfUp equals the old billing formula wherever it was exact', () => {
    fc.assert(
      fc.property(
        hundredths.chain((p) => fc.tuple(cents(safeFor(p)), fc.constant(p))),
        ([c, p]) => percentHalfUp(c, p) === OLD.percentHalfUp(c, p),
      ),
      { numRuns: RUNS },
    );
  });

  it('percentFloor equals the old billing formula wherever it was exact', () => {
    fc.assert(
      fc.property(
        hundredths.chain((p) => fc.tuple(cents(safeFor(p)), fc.constant(p))),
        ([c, p]) => percentFloor(c, p) === OLD.percentFloor(c, p),
      ),
      { numRuns: RUNS },
    );
  });

  it('divideHalfUp equals the old billing formula', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }).chain((d) => fc.tuple(cents(safeFor(1)), fc.constant(d))),
        ([n, d]) => divideHalfUp(n, d) === OLD.divideHalfUp(n, d),
      ),
      { numRuns: RUNS },
    );
  });

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
