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
