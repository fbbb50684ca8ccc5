/**
 * Billing amounts are integer cents and percentages are integer hundredths of a percent (10000 = 100 %), so
 * every computation here is integer arithmetic with one explicit rounding rule.
 */
import { LIMITS } from '../../platform/limits.ts';

/** numerator / denominator rounded half-up (both non-negative integers). */
export function divideHalfUp(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

/** `basisPoints` hundredths of a percent of `cents`, half-up to the cent (spec: card fee rounding). */
export const percentHalfUp = (cents: number, basisPoints: number) =>
  divideHalfUp(cents * basisPoints, LIMITS.billingPercentScale);

/** Share of `cents` rounded down: a split never pays out a cent that was not there. */
export const percentFloor = (cents: number, basisPoints: number) =>
  Math.floor((cents * basisPoints) / LIMITS.billingPercentScale);

/** "1.234,56": the `currency` text of the installments table. */
export function formatBrl(cents: number): string {
  const units = Math.trunc(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${units},${String(cents % 100).padStart(2, '0')}`;
}
