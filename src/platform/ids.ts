import assert from 'node:assert/strict';
import { randomBytes, randomFillSync, randomUUID } from 'node:crypto';
import { LIMITS } from './limits.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Random bytes drawn from the system a pool at a time: one call per id cost about a tenth of a create's
 * CPU (each call enters OpenSSL and allocates). Node pools the bytes behind randomUUID the same way.
 */
const RANDOM_POOL_BYTES = 4096;
const randomPool = Buffer.allocUnsafe(RANDOM_POOL_BYTES);
let randomPoolOffset = RANDOM_POOL_BYTES;

/** Where the next `count` pooled bytes start (refilling first when fewer are left). */
function takeRandomBytes(count: number): number {
  assert(count <= RANDOM_POOL_BYTES, 'at most one pool of random bytes at a time');
  if (randomPoolOffset + count > RANDOM_POOL_BYTES) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  const start = randomPoolOffset;
  randomPoolOffset += count;
  return start;
}

function nextRandomByte(): number {
  return randomPool[takeRandomBytes(1)];
}

/** `bytes` random bytes as lowercase hex (two characters each). */
export function randomHex(bytes: number): string {
  const start = takeRandomBytes(bytes);
  return randomPool.toString('hex', start, start + bytes);
}

/** Uniform over `alphabet` (at most 256 symbols). */
export function randomAlphanumeric(length: number, alphabet = ALPHANUMERIC): string {
  assert(alphabet.length > 0 && alphabet.length <= 256, 'alphabet of 1 to 256 symbols');
  // Bytes from `unbiasedBelow` up would favour the first symbols; they are drawn again.
  const unbiasedBelow = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < unbiasedBelow) out += alphabet[byte % alphabet.length];
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
