/**
 * Identifiers of the institutions in Pix messages. ISPBs are 8 digits; these are fictitious and
 * outside the ranges the Central Bank assigns, so sandbox data can never be mistaken for real traffic.
 */
import { randomAlphanumeric } from './ids.ts';

/** This service, as a receiving institution (refund ids, `rtrId`, start with it). */
export const RECEIVER_ISPB = '99999008';
/** The fictitious payer's institution in sandbox payments (end-to-end ids it "sends"). */
export const SANDBOX_PAYER_ISPB = '99999009';

const UPPER_ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `<prefix><ISPB><yyyyMMddHHmm UTC><11 alphanumerics>`: the shape of endToEndId (E) and rtrId (D). */
function pixMessageId(prefix: 'E' | 'D', ispb: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return `${prefix}${ispb}${stamp}${randomAlphanumeric(11, UPPER_ALPHANUMERIC)}`;
}

export const newEndToEndId = (at: Date, ispb = SANDBOX_PAYER_ISPB) => pixMessageId('E', ispb, at);
export const newReturnId = (at: Date) => pixMessageId('D', RECEIVER_ISPB, at);

export const END_TO_END_ID_PATTERN = '^[ED]\\d{8}\\d{12}[a-zA-Z0-9]{11}$';
