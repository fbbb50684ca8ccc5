/**
 * Card brands accepted in token calls (spec: visa, mastercard, amex, diners, elo), detected from the number's
 * prefix. The same table is served inside the browser library (src/web), so server and browser always agree.
 * Order matters: Elo ranges overlap Visa's and Mastercard's prefixes, so Elo is tried first.
 */
export const BRANDS = ['visa', 'mastercard', 'amex', 'diners', 'elo'] as const;
export type Brand = (typeof BRANDS)[number];

export const BRAND_PATTERNS: readonly [Brand, string][] = [
  [
    'elo',
    '^(4011(78|79)|43(1274|8935)|45(1416|7393|763(1|2))|50(4175|6699|67[0-7][0-9]|9000)|509[0-9]{3}|627780|63(6297|6368)|650(03[^4]|04[0-9]|05[01]|05[7-9]|06[0-9]|07[0-9]|08[0-9]|4[0-3][0-9]|48[5-9]|49[0-9]|5[0-2][0-9]|53[0-8]|9[0-6][0-9]|97[0-8]|7[0-2][0-9]|541|700|720|727|901)|65165[2-9]|6516[6-7][0-9]|65500[0-9]|6550[0-5][0-9]|6516[89][0-9]|65170[0-4])',
  ],
  ['amex', '^3[47][0-9]'],
  ['diners', '^3(0[0-5]|[689][0-9])'],
  ['visa', '^4'],
  ['mastercard', '^(5[1-5]|222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)'],
];

export const CARD_NUMBER_DIGITS = { min: 13, max: 19 } as const;

export function detectBrand(number: string): Brand | null {
  const digits = number.replace(/\s+/g, '');
  if (!/^\d+$/.test(digits)) return null;
  for (const [brand, pattern] of BRAND_PATTERNS) if (new RegExp(pattern).test(digits)) return brand;
  return null;
}

export const isBrand = (value: string): value is Brand => (BRANDS as readonly string[]).includes(value);

/** What is kept and shown of a number: its last four digits behind X's. */
export const maskCard = (number: string) => 'X'.repeat(number.length - 4) + number.slice(-4);
