/**
 * Money is integer cents inside. Decimal strings with two decimals exist only at the Pix HTTP edge.
 * No floating point ever touches an amount: parsing and formatting are done on the digits.
 */
import { LIMITS } from './limits.ts';

export const AMOUNT_PATTERN = `^\\d{1,${LIMITS.amountMaxIntegerDigits}}\\.\\d{2}$`;
const AMOUNT_RE = new RegExp(AMOUNT_PATTERN);

export function parseAmount(text: string): number {
  if (!AMOUNT_RE.test(text)) throw new RangeError(`not a two-decimal amount: "${text}"`);
  const [units, cents] = text.split('.');
  const value = Number(units) * 100 + Number(cents);
  if (!Number.isSafeInteger(value)) throw new RangeError(`amount out of range: "${text}"`);
  return value;
}

export function formatAmount(amountCents: number): string {
  assertCents(amountCents);
  const sign = amountCents < 0 ? '-' : '';
  const abs = Math.abs(amountCents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

export function assertCents(amountCents: number): void {
  if (!Number.isSafeInteger(amountCents)) throw new TypeError(`amount must be integer cents, got ${amountCents}`);
}

/**
 * Percentages are integer hundredths of a percent (10000 = 100 %): card fees, discounts and marketplace
 * shares in billing, split shares in Pix. Every helper below is exact integer arithmetic with one named
 * rounding rule; products go through BigInt, since an amount in cents times a percentage in hundredths
 * passes 2^53 long before either does.
 */
export const PERCENT_SCALE = 10_000;
const SCALE = BigInt(PERCENT_SCALE);

/** numerator / denominator rounded half-up (non-negative integers, denominator > 0). */
export function divideHalfUp(numerator: number, denominator: number): number {
  const d = BigInt(denominator);
  return Number((2n * BigInt(numerator) + d) / (2n * d));
}

/** `hundredths` hundredths of a percent of `cents`, half-up to the cent (billing: card fee, discounts, interest). */
export function percentHalfUp(cents: number, hundredths: number): number {
  return Number((2n * BigInt(cents) * BigInt(hundredths) + SCALE) / (2n * SCALE));
}

/** `hundredths` hundredths of a percent of `cents`, rounded down: a share never pays out a cent that was not there. */
export function percentFloor(cents: number, hundredths: number): number {
  return Number((BigInt(cents) * BigInt(hundredths)) / SCALE);
}

/**
 * Divides `cents` into shares of `hundredths` (which add up to 100 %) by the largest-remainder method: every
 * share first gets the floor of its exact value; the cents left over (always fewer than the number of shares)
 * go one each to the shares whose discarded fraction is largest, ties to the lower position. Each share is
 * then within one cent of its exact value and the shares add up exactly to `cents`.
 */
export function allocateByPercent(cents: number, hundredths: readonly number[]): number[] {
  return allocateByWeights(cents, hundredths);
}

/**
 * Divides `cents` in proportion to `weights` (whole numbers, not all zero) by the same largest-remainder method.
 * A share never exceeds its weight when `cents` does not exceed the weights' total (a floor below a weight,
 * plus at most one cent, stays within it).
 */
export function allocateByWeights(cents: number, weights: readonly number[]): number[] {
  const amount = BigInt(cents);
  const total = weights.reduce((a, b) => a + BigInt(b), 0n);
  const floors = weights.map((w) => (amount * BigInt(w)) / total);
  const remainders = weights.map((w) => (amount * BigInt(w)) % total);
  let leftCents = amount - floors.reduce((a, b) => a + b, 0n);
  const byLargestRemainder = weights
    .map((_, i) => i)
    .sort((a, b) => (remainders[b] > remainders[a] ? 1 : remainders[b] < remainders[a] ? -1 : a - b));
  for (const i of byLargestRemainder) {
    if (leftCents === 0n) break;
    floors[i] += 1n;
    leftCents -= 1n;
  }
  return floors.map(Number);
}
