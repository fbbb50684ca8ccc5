/**
 * FEBRABAN bill codes: the bank boleto ("ficha de compensação": 44-digit barcode, 47-digit linha digitável) and
 * the arrecadação bill (utilities, taxes: 44-digit barcode, 48-digit linha digitável). Pure functions, no I/O:
 * check digits, the due-date factor, building a bank barcode, converting barcode ⇄ linha digitável, and parsing
 * any of the four forms into what its layout carries, with a named defect for each way a code can be wrong.
 *
 * Bank barcode (44): bank(3) currency(1) general DV(1) due-date factor(4) amount in cents(10) free field(25).
 * Bank linha (47): bank+currency+free[0,5) DV | free[5,15) DV | free[15,25) DV | general DV | factor+amount, the
 * field DVs by modulo 10, the general DV by the bank's modulo 11 (over the barcode without its 5th digit).
 * Arrecadação barcode (44): '8' segment(1) value identifier(1) general DV(1) value(11) company id(4, or 8 — the
 * CNPJ's root — in segment 6) free field; linha (48): four blocks of 11 barcode digits each followed by its DV.
 * The value identifier picks the modulus of every DV: 6/7 modulo 10, 8/9 modulo 11; 6/8 carry the value in
 * cents, 7/9 a reference quantity (an index or currency units, not reais).
 */
import { fromEpochDay, toEpochDay } from './calendar.ts';

/** Every way a code can be wrong, each its own name (the API maps them to its errors). */
export type BarcodeDefect =
  | 'not_digits' // something other than digits and the usual separators (space . -)
  | 'product' // a 48-digit linha not starting with 8, the arrecadação product
  | 'length' // not 44 (barcode), 47 (bank linha) or 48 (arrecadação linha) digits
  | 'field_check_digit' // a bank linha's field DV (modulo 10)
  | 'block_check_digit' // an arrecadação linha's block DV
  | 'general_check_digit' // the barcode's general DV
  | 'currency_code' // a bank boleto in a currency other than the real (code 9)
  | 'segment' // arrecadação segment 0 or 8 (unassigned)
  | 'value_identifier'; // arrecadação value identifier other than 6, 7, 8, 9

export class BarcodeError extends Error {
  override readonly name = 'BarcodeError';
  constructor(
    readonly defect: BarcodeDefect,
    message: string,
  ) {
    super(message);
  }
}

// --- check digits -----------------------------------------------------------------------------------------

/** Modulo 10 DV: weights 2,1,2,… from the right, two-digit products summed digit by digit. */
export function modulo10(digits: string): number {
  let sum = 0;
  for (let i = digits.length - 1, weight = 2; i >= 0; i--, weight = weight === 2 ? 1 : 2) {
    const product = Number(digits[i]) * weight;
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10;
}

/** The weighted sum modulo 11 with weights 2..9 repeating from the right, shared by both layouts' DVs. */
function remainder11(digits: string): number {
  let sum = 0;
  for (let i = digits.length - 1, weight = 2; i >= 0; i--, weight = weight === 9 ? 2 : weight + 1) {
    sum += Number(digits[i]) * weight;
  }
  return sum % 11;
}

/** The bank boleto's general DV: 11 − remainder, where 0, 10 and 11 become 1 (the digit is never 0). */
export function bankModulo11(digits: string): number {
  const dv = 11 - remainder11(digits);
  return dv === 0 || dv >= 10 ? 1 : dv;
}

/** The arrecadação modulo 11 DV: 11 − remainder, where 10 and 11 (remainders 1 and 0) become 0. */
export function arrecadacaoModulo11(digits: string): number {
  const dv = 11 - remainder11(digits);
  return dv >= 10 ? 0 : dv;
}

// --- the due-date factor ----------------------------------------------------------------------------------

/**
 * The due-date factor counts days from 1997-10-07 (factor 1000 = 2000-07-03, the first one printed). It reached
 * 9999 on 2025-02-21, and FEBRABAN restarted it at 1000 on 2025-02-22; it keeps cycling through 1000..9999,
 * every 9000 days (next restart 2049-10-13). A factor below 1000 (first digit 0) means "no due date".
 */
const FACTOR_BASE_DAY = toEpochDay('1997-10-07');
const FACTOR_FIRST = 1000;
const FACTOR_CYCLE_DAYS = 9000;
const FIRST_FACTOR_DAY = FACTOR_BASE_DAY + FACTOR_FIRST; // 2000-07-03
/**
 * A factor names one date per 9000-day cycle; decoding picks the one nearest the reference date (today),
 * i.e. within 4500 days either side: an overdue boleto twelve years old and one due in twelve years both read.
 */
const FACTOR_WINDOW_BEFORE_DAYS = FACTOR_CYCLE_DAYS / 2;

/** The factor of a due date (YYYY-MM-DD) from 2000-07-03 on, in whichever cycle the date falls. */
export function dueDateFactor(dueDate: string): number {
  const day = toEpochDay(dueDate);
  if (day < FIRST_FACTOR_DAY) throw new RangeError(`due date before 2000-07-03 has no factor: ${dueDate}`);
  return FACTOR_FIRST + ((day - FIRST_FACTOR_DAY) % FACTOR_CYCLE_DAYS);
}

/** The due date a factor names, the candidate nearest `referenceDate`; null for a factor below 1000. */
export function dueDateFromFactor(factor: number, referenceDate: string): string | null {
  if (!Number.isInteger(factor) || factor < 0 || factor > 9999) throw new RangeError(`not a factor: ${factor}`);
  if (factor < FACTOR_FIRST) return null;
  const firstDay = FIRST_FACTOR_DAY + factor - FACTOR_FIRST;
  const earliest = toEpochDay(referenceDate) - FACTOR_WINDOW_BEFORE_DAYS;
  const cycles = Math.max(0, Math.ceil((earliest - firstDay) / FACTOR_CYCLE_DAYS));
  return fromEpochDay(firstDay + cycles * FACTOR_CYCLE_DAYS);
}

// --- bank boletos -----------------------------------------------------------------------------------------

export const BANK_BARCODE_DIGITS = 44;
export const BANK_LINE_DIGITS = 47;
export const ARRECADACAO_LINE_DIGITS = 48;
/** The amount field is 10 digits of cents. */
export const BANK_AMOUNT_MAX_CENTS = 9_999_999_999;
const CURRENCY_REAL = '9';

export interface BankBarcodeInput {
  bankCode: string; // 3 digits
  currencyCode?: string; // 9, the real (the only one pixd issues)
  dueDate: string | null; // YYYY-MM-DD, or null for a boleto without due date (factor 0000)
  amountCents: number; // 0 lets the payer type the amount
  freeField: string; // 25 digits, the issuing bank's own layout
}

/** The 44-digit barcode of a bank boleto, its general DV computed. Bad input is a RangeError (a caller's bug). */
export function bankBarcode(input: BankBarcodeInput): string {
  const currency = input.currencyCode ?? CURRENCY_REAL;
  if (!/^\d{3}$/.test(input.bankCode)) throw new RangeError(`bank code is not 3 digits: ${input.bankCode}`);
  if (!/^\d$/.test(currency)) throw new RangeError(`currency code is not 1 digit: ${currency}`);
  if (!/^\d{25}$/.test(input.freeField)) throw new RangeError('free field is not 25 digits');
  const cents = input.amountCents;
  if (!Number.isSafeInteger(cents) || cents < 0 || cents > BANK_AMOUNT_MAX_CENTS)
    throw new RangeError(`amount does not fit the barcode: ${cents} cents`);
  const factor = input.dueDate === null ? 0 : dueDateFactor(input.dueDate);
  const tail = `${String(factor).padStart(4, '0')}${String(cents).padStart(10, '0')}${input.freeField}`;
  const head = `${input.bankCode}${currency}`;
  return `${head}${bankModulo11(head + tail)}${tail}`;
}

/** Linha digitável (47) of a bank barcode (44); the digits are trusted (see parseBill to validate). */
export function bankBarcodeToLine(barcode: string): string {
  const free = barcode.slice(19);
  const field = (digits: string) => digits + modulo10(digits);
  return (
    field(barcode.slice(0, 4) + free.slice(0, 5)) +
    field(free.slice(5, 15)) +
    field(free.slice(15, 25)) +
    barcode[4] +
    barcode.slice(5, 19)
  );
}

/** Bank barcode (44) of a linha digitável (47), dropping the field DVs without checking them. */
export function bankLineToBarcode(line: string): string {
  return line.slice(0, 4) + line[32] + line.slice(33, 47) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
}

// --- arrecadação bills ------------------------------------------------------------------------------------

/** The arrecadação check digit of `digits` under the modulus a value identifier picks. */
function arrecadacaoDigit(valueIdentifier: string, digits: string): number {
  return valueIdentifier === '6' || valueIdentifier === '7' ? modulo10(digits) : arrecadacaoModulo11(digits);
}

/** Linha digitável (48) of an arrecadação barcode (44): each 11-digit block followed by its DV. */
export function arrecadacaoBarcodeToLine(barcode: string): string {
  let line = '';
  for (let i = 0; i < 44; i += 11)
    line += barcode.slice(i, i + 11) + arrecadacaoDigit(barcode[2]!, barcode.slice(i, i + 11));
  return line;
}

/** Arrecadação barcode (44) of a linha digitável (48), dropping the block DVs without checking them. */
export function arrecadacaoLineToBarcode(line: string): string {
  return line.slice(0, 11) + line.slice(12, 23) + line.slice(24, 35) + line.slice(36, 47);
}

// --- parsing ----------------------------------------------------------------------------------------------

export interface BankBill {
  kind: 'bank';
  barcode: string;
  linhaDigitavel: string;
  bankCode: string;
  currencyCode: string;
  dueDateFactor: number;
  dueDate: string | null; // null: the code carries no due date
  amountCents: number; // 0: the payer informs the amount
  freeField: string;
}

export const ARRECADACAO_SEGMENTS = {
  1: 'prefeituras',
  2: 'saneamento',
  3: 'energia elétrica e gás',
  4: 'telecomunicações',
  5: 'órgãos governamentais',
  6: 'demais empresas (identificadas pelo CNPJ)',
  7: 'multas de trânsito',
  9: 'uso exclusivo do banco',
} as const;
export type ArrecadacaoSegment = keyof typeof ARRECADACAO_SEGMENTS;

export interface ArrecadacaoBill {
  kind: 'arrecadacao';
  barcode: string;
  linhaDigitavel: string;
  segment: ArrecadacaoSegment;
  valueIdentifier: 6 | 7 | 8 | 9;
  /** The value in cents for identifiers 6 and 8; null for 7 and 9, whose value is a reference quantity. */
  amountCents: number | null;
  /** The 11-digit value field as printed (cents, or the reference quantity). */
  value: string;
  /** The company or agency: 4 digits, or in segment 6 the CNPJ's 8-digit root. */
  companyId: string;
  freeField: string;
}

export type ParsedBill = BankBill | ArrecadacaoBill;

const SEPARATORS = /[\s.-]/g;

/**
 * Parses and validates a bill code in any of its four forms: a 44-digit barcode (arrecadação when it starts
 * with 8, bank otherwise), a 47-digit bank linha digitável or a 48-digit arrecadação one. Spaces, dots and
 * hyphens are ignored. `referenceDate` (today, YYYY-MM-DD) resolves the due-date factor's cycle.
 * Throws BarcodeError naming the first defect found.
 */
export function parseBill(code: string, referenceDate: string): ParsedBill {
  const digits = code.replace(SEPARATORS, '');
  if (!/^\d+$/.test(digits)) throw new BarcodeError('not_digits', 'a bill code has only digits');
  if (digits.length === BANK_LINE_DIGITS) {
    const fields = [digits.slice(0, 10), digits.slice(10, 21), digits.slice(21, 32)];
    fields.forEach((field, i) => {
      if (modulo10(field.slice(0, -1)) !== Number(field.at(-1)))
        throw new BarcodeError('field_check_digit', `field ${i + 1}'s check digit does not match`);
    });
    return parseBankBarcode(bankLineToBarcode(digits), referenceDate);
  }
  if (digits.length === ARRECADACAO_LINE_DIGITS) {
    checkArrecadacaoHeader(digits);
    for (let i = 0; i < 48; i += 12) {
      if (arrecadacaoDigit(digits[2]!, digits.slice(i, i + 11)) !== Number(digits[i + 11]))
        throw new BarcodeError('block_check_digit', `block ${i / 12 + 1}'s check digit does not match`);
    }
    return parseArrecadacaoBarcode(arrecadacaoLineToBarcode(digits));
  }
  if (digits.length === BANK_BARCODE_DIGITS)
    return digits[0] === '8' ? parseArrecadacaoBarcode(digits) : parseBankBarcode(digits, referenceDate);
  throw new BarcodeError('length', `a bill code has 44, 47 or 48 digits, not ${digits.length}`);
}

function parseBankBarcode(barcode: string, referenceDate: string): BankBill {
  if (bankModulo11(barcode.slice(0, 4) + barcode.slice(5)) !== Number(barcode[4]))
    throw new BarcodeError('general_check_digit', "the barcode's general check digit does not match");
  if (barcode[3] !== CURRENCY_REAL)
    throw new BarcodeError('currency_code', `currency code ${barcode[3]} is not the real (9)`);
  const factor = Number(barcode.slice(5, 9));
  return {
    kind: 'bank',
    barcode,
    linhaDigitavel: bankBarcodeToLine(barcode),
    bankCode: barcode.slice(0, 3),
    currencyCode: barcode[3]!,
    dueDateFactor: factor,
    dueDate: dueDateFromFactor(factor, referenceDate),
    amountCents: Number(barcode.slice(9, 19)),
    freeField: barcode.slice(19),
  };
}

/** Product 8, an assigned segment and a known value identifier: read before any DV, since they pick its modulus. */
function checkArrecadacaoHeader(digits: string): void {
  if (digits[0] !== '8') throw new BarcodeError('product', 'an arrecadação code starts with 8');
  if (!(Number(digits[1]) in ARRECADACAO_SEGMENTS))
    throw new BarcodeError('segment', `arrecadação segment ${digits[1]} is not assigned`);
  if (!'6789'.includes(digits[2]!))
    throw new BarcodeError('value_identifier', `value identifier ${digits[2]} is not 6, 7, 8 or 9`);
}

function parseArrecadacaoBarcode(barcode: string): ArrecadacaoBill {
  checkArrecadacaoHeader(barcode);
  const valueIdentifier = Number(barcode[2]) as 6 | 7 | 8 | 9;
  if (arrecadacaoDigit(barcode[2]!, barcode.slice(0, 3) + barcode.slice(4)) !== Number(barcode[3]))
    throw new BarcodeError('general_check_digit', "the barcode's general check digit does not match");
  const segment = Number(barcode[1]) as ArrecadacaoSegment;
  const companyDigits = segment === 6 ? 8 : 4;
  const value = barcode.slice(4, 15);
  return {
    kind: 'arrecadacao',
    barcode,
    linhaDigitavel: arrecadacaoBarcodeToLine(barcode),
    segment,
    valueIdentifier,
    amountCents: valueIdentifier === 6 || valueIdentifier === 8 ? Number(value) : null,
    value,
    companyId: barcode.slice(15, 15 + companyDigits),
    freeField: barcode.slice(15 + companyDigits),
  };
}
