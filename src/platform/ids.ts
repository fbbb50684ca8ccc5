import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { LIMITS } from './limits.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomAlphanumeric(length: number, alphabet = ALPHANUMERIC): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
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
