/**
 * Billing amounts are integer cents, shown in Brazilian notation. Percentages and rounding (fees, discounts,
 * marketplace shares, installments) are src/platform/money.ts's, shared with the Pix split.
 */

/** "1.234,56": the `currency` text of the installments table. */
export function formatBrl(cents: number): string {
  const units = Math.trunc(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${units},${String(cents % 100).padStart(2, '0')}`;
}
