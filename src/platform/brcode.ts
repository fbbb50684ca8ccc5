/**
 * Pix BR Code (EMV QRCPS-MPM TLV) encoder/decoder, per the Central Bank
 * "Manual de Padrões para Iniciação do Pix". Amounts are integer cents only.
 */
import { LIMITS } from './limits.ts';

export const PIX_GUI = 'br.gov.bcb.pix';
export const FIELD_VALUE_MAX_CHARS = 99; // the length prefix is two decimal digits
export const MERCHANT_NAME_MAX_CHARS = 25;
export const MERCHANT_CITY_MAX_CHARS = 15;
export const STATIC_TXID_MAX_CHARS = 25;
export const AMOUNT_MAX_CHARS = 13; // EMV ID 54 format, e.g. "9999999999.99"

export interface DynamicBrCodeInput {
  locationUrl: string;
  merchantName: string;
  merchantCity: string;
}

export interface StaticBrCodeInput {
  chave: string;
  amountCents?: number;
  txid?: string;
  merchantName: string;
  merchantCity: string;
  infoAdicional?: string;
}

/**
 * A composite code of automatic Pix ("QR Composto"): the recurrence's location in ID 80, and in ID 26 the
 * location of the charge paid with it (journeys 3 and 4) or the bare GUI (journey 2, no charge).
 */
export interface CompositeBrCodeInput {
  recurrenceLocationUrl: string;
  /** The immediate (journey 3) or due (journey 4) charge's location; absent for journey 2. */
  chargeLocationUrl?: string;
  merchantName: string;
  merchantCity: string;
}

export interface ParsedBrCode {
  fields: Map<string, string>;
  merchantAccount: Map<string, string>;
  /** ID 80 of a composite code (automatic Pix): GUI and the recurrence's location (25). */
  recurrenceAccount: Map<string, string>;
  additionalData: Map<string, string>;
  /** CRC field present as the last field and matching the payload. */
  valid: boolean;
}

const CRC_PREFIX = '6304';
const UTF8 = new TextEncoder();

/** CRC-16/CCITT-FALSE one byte at a time: every charge view computes one, so the bit loop is done once here. */
const CRC16_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

/**
 * CRC16-CCITT-FALSE. Computed over UTF-8 bytes: identical to per-character for
 * the ASCII the spec expects, and what the market's readers do otherwise.
 */
export function crc16Ccitt(payload: string): string {
  let crc = 0xffff;
  for (const byte of UTF8.encode(payload)) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[(crc >> 8) ^ byte]!;
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Strips diacritics and anything outside the EMV Alphanumeric Special set
 * (printable ASCII), then truncates: payer apps reject or mangle other bytes.
 */
export function normalizeEmvText(text: string, maxChars: number): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7E\s]/g, '')
    .replace(/\s+/g, ' ') // tabs/newlines become spaces rather than gluing words together
    .trim()
    .slice(0, maxChars)
    .trimEnd();
}

/** Integer arithmetic only, so no amount can pick up a binary-float rounding error. */
export function formatAmountCents(amountCents: number): string {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw new RangeError(`amountCents must be a positive integer, got ${amountCents}`);
  }
  const cents = amountCents % 100;
  const reais = (amountCents - cents) / 100;
  const text = `${reais}.${String(cents).padStart(2, '0')}`;
  if (text.length > AMOUNT_MAX_CHARS) {
    throw new RangeError(`BR Code field transaction amount (ID 54) "${text}" exceeds ${AMOUNT_MAX_CHARS} chars`);
  }
  return text;
}

// EMV lengths count characters, not UTF-16 units; the parser counts the same way.
/** Length in code points (a surrogate pair is one character), without building an array per field. */
function charLength(value: string): number {
  let length = value.length;
  for (let i = 0; i < value.length - 1; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

function tlv(id: string, value: string, name: string): string {
  const length = charLength(value);
  if (length === 0) throw new RangeError(`BR Code field ${name} (ID ${id}) is empty`);
  if (length > FIELD_VALUE_MAX_CHARS) {
    throw new RangeError(
      `BR Code field ${name} (ID ${id}) is ${length} chars; the maximum is ${FIELD_VALUE_MAX_CHARS}`,
    );
  }
  return `${id}${String(length).padStart(2, '0')}${value}`;
}

/**
 * Normalised merchant names and cities: every code of an account repeats the same two, and Unicode
 * normalisation is the dearest step of building a code. Bounded; emptied when full.
 */
const normalizedMerchantText = new Map<string, string>();

function merchantText(value: string, maxChars: number, id: string, name: string): string {
  const cacheKey = `${maxChars}:${value}`;
  let normalized = normalizedMerchantText.get(cacheKey);
  if (normalized === undefined) {
    normalized = normalizeEmvText(value, maxChars);
    if (normalizedMerchantText.size >= LIMITS.brCodeMerchantTextsCachedMax) normalizedMerchantText.clear();
    normalizedMerchantText.set(cacheKey, normalized);
  }
  if (!normalized) throw new RangeError(`BR Code field ${name} (ID ${id}) is empty after normalisation`);
  return normalized;
}

// The manual fixes this order; some payer apps are sensitive to it.
function assemble(parts: {
  pointOfInitiation?: string;
  merchantAccount: string;
  amount?: string;
  merchantName: string;
  merchantCity: string;
  txid: string;
  /** ID 80, after the additional data as the manual's template order puts it. */
  recurrenceAccount?: string;
}): string {
  const body = [
    tlv('00', '01', 'payload format indicator'),
    parts.pointOfInitiation ? tlv('01', parts.pointOfInitiation, 'point of initiation method') : '',
    tlv('26', parts.merchantAccount, 'merchant account information'),
    tlv('52', '0000', 'merchant category code'),
    tlv('53', '986', 'transaction currency'),
    parts.amount ? tlv('54', parts.amount, 'transaction amount') : '',
    tlv('58', 'BR', 'country code'),
    tlv('59', merchantText(parts.merchantName, MERCHANT_NAME_MAX_CHARS, '59', 'merchant name'), 'merchant name'),
    tlv('60', merchantText(parts.merchantCity, MERCHANT_CITY_MAX_CHARS, '60', 'merchant city'), 'merchant city'),
    tlv('62', tlv('05', parts.txid, 'reference label / txid'), 'additional data field template'),
    parts.recurrenceAccount ? tlv('80', parts.recurrenceAccount, 'recurrence account information') : '',
  ].join('');
  const withCrcHeader = body + CRC_PREFIX;
  return withCrcHeader + crc16Ccitt(withCrcHeader);
}

/** The payer's PSP always prepends "https://", so any other scheme would be silently rewritten. */
function stripHttpsScheme(url: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (!scheme) return url;
  if (scheme[1]!.toLowerCase() !== 'https') {
    throw new RangeError(`locationUrl must use https, got scheme "${scheme[1]}"`);
  }
  return url.slice(scheme[0].length);
}

/** Dynamic codes carry no amount: the payer fetches it from the location. */
export function dynamicBrCode(input: DynamicBrCodeInput): string {
  const merchantAccount = tlv('00', PIX_GUI, 'GUI') + tlv('25', stripHttpsScheme(input.locationUrl), 'location URL');
  return assemble({
    pointOfInitiation: '12', // single use: the cobrança behind the location is paid once
    merchantAccount,
    merchantName: input.merchantName,
    merchantCity: input.merchantCity,
    txid: '***', // the txid lives in the payload behind the location
  });
}

/**
 * The composite code of a recurrence, laid out as the Bacen API standard's own examples of `dadosQR`
 * (RecCompleta, journeys 2, 3 and 4; their CRCs check): ID 80 = GUI + 25 (recurrence location); ID 26 = GUI
 * + 25 (charge location) with point of initiation 12 when a charge is paid with it, the GUI alone and no ID 01
 * otherwise.
 */
export function compositeBrCode(input: CompositeBrCodeInput): string {
  const gui = tlv('00', PIX_GUI, 'GUI');
  const charge = input.chargeLocationUrl;
  return assemble({
    ...(charge && { pointOfInitiation: '12' }),
    merchantAccount: gui + (charge ? tlv('25', stripHttpsScheme(charge), 'location URL') : ''),
    recurrenceAccount: gui + tlv('25', stripHttpsScheme(input.recurrenceLocationUrl), 'recurrence location URL'),
    merchantName: input.merchantName,
    merchantCity: input.merchantCity,
    txid: '***',
  });
}

export function staticBrCode(input: StaticBrCodeInput): string {
  const txid = input.txid ?? '***';
  const txidPattern = new RegExp(`^[A-Za-z0-9]{1,${STATIC_TXID_MAX_CHARS}}$`);
  if (txid !== '***' && !txidPattern.test(txid)) {
    throw new RangeError(`static txid must be 1-${STATIC_TXID_MAX_CHARS} alphanumerics, got "${txid}"`);
  }
  const merchantAccount =
    tlv('00', PIX_GUI, 'GUI') +
    tlv('01', input.chave, 'chave') +
    (input.infoAdicional ? tlv('02', input.infoAdicional, 'infoAdicional') : '');
  return assemble({
    merchantAccount,
    amount: input.amountCents === undefined ? undefined : formatAmountCents(input.amountCents),
    merchantName: input.merchantName,
    merchantCity: input.merchantCity,
    txid,
  });
}

function parseTlv(text: string, where: string): Map<string, string> {
  const chars = Array.from(text);
  const out = new Map<string, string>();
  let i = 0;
  while (i < chars.length) {
    const header = chars.slice(i, i + 4).join('');
    if (!/^\d{4}$/.test(header)) {
      throw new SyntaxError(`Malformed BR Code ${where}: bad ID/length "${header}" at position ${i}`);
    }
    const id = header.slice(0, 2);
    const length = Number(header.slice(2));
    const end = i + 4 + length;
    if (length === 0 || end > chars.length) {
      throw new SyntaxError(`Malformed BR Code ${where}: ID ${id} declares length ${length} at position ${i}`);
    }
    if (out.has(id)) throw new SyntaxError(`Malformed BR Code ${where}: duplicate ID ${id}`);
    out.set(id, chars.slice(i + 4, end).join(''));
    i = end;
  }
  return out;
}

/** Throws SyntaxError on malformed TLV; a bad or misplaced CRC only clears `valid`. */
export function parseBrCode(code: string): ParsedBrCode {
  const fields = parseTlv(code, 'payload');
  const merchantAccount = fields.has('26') ? parseTlv(fields.get('26')!, 'ID 26') : new Map<string, string>();
  const additionalData = fields.has('62') ? parseTlv(fields.get('62')!, 'ID 62') : new Map<string, string>();
  const recurrenceAccount = fields.has('80') ? parseTlv(fields.get('80')!, 'ID 80') : new Map<string, string>();
  const crc = fields.get('63') ?? '';
  // The CRC covers everything before its own value, so it only means something as the last field.
  const crcIsLast = [...fields.keys()].at(-1) === '63' && /^[0-9A-F]{4}$/.test(crc);
  const valid = crcIsLast && crc16Ccitt(code.slice(0, -4)) === crc;
  return { fields, merchantAccount, recurrenceAccount, additionalData, valid };
}
