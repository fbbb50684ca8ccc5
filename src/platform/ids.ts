import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { LIMITS } from './limits.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniform over `alphabet` (at most 256 symbols): one draw of random bytes, not one call per character. */
export function randomAlphanumeric(length: number, alphabet = ALPHANUMERIC): string {
  assert(alphabet.length > 0 && alphabet.length <= 256, 'alphabet of 1 to 256 symbols');
  // Bytes from `unbiasedBelow` up would favour the first symbols; they are drawn again.
  const unbiasedBelow = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length - out.length)) if (byte < unbiasedBelow) out += alphabet[byte % alphabet.length];
  }
  return out;
}

export const TXID_PATTERN = `^[a-zA-Z0-9]{${LIMITS.txidMinChars},${LIMITS.txidMaxChars}}$`;

export function newTxid(): string {
  return randomAlphanumeric(LIMITS.txidAssignedChars);
}

export function newSecret(): string {
  return randomBytes(24).toString('base64url');
}

export { randomUUID };
