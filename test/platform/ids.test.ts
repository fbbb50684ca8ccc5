// suite: database-independent
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newTxid, randomAlphanumeric, randomHex } from '../../src/platform/ids.ts';
import { LIMITS } from '../../src/platform/limits.ts';

describe('random identifiers', () => {
  it('draws every symbol of the alphabet, and nothing else, at the length asked', () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 400; i++) {
      const id = randomAlphanumeric(35);
      assert.equal(id.length, 35);
      for (const symbol of id) seen.set(symbol, (seen.get(symbol) ?? 0) + 1);
    }
    assert.deepEqual(
      [...seen.keys()].sort().join(''),
      [...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'].sort().join(''),
    );
    // 14,000 draws over 62 symbols: about 226 each; a modulo bias towards the first symbols would show as ~2x.
    const counts = [...seen.values()];
    assert.ok(Math.max(...counts) < 2 * Math.min(...counts), `counts ${Math.min(...counts)}..${Math.max(...counts)}`);
  });

  it('uses a custom alphabet and assigns txids of the configured length', () => {
    assert.match(randomAlphanumeric(40, 'AB'), /^[AB]{40}$/);
    assert.match(newTxid(), new RegExp(`^[a-zA-Z0-9]{${LIMITS.txidAssignedChars}}$`));
    assert.throws(() => randomAlphanumeric(5, ''), /alphabet/);
  });

  it('keeps drawing fresh bytes past the pool it draws from: a thousand txids, all distinct', () => {
    // 32,000 symbols need more than 32,000 random bytes: the 4 KiB pool is refilled several times.
    const txids = Array.from({ length: 1000 }, newTxid);
    assert.equal(new Set(txids).size, txids.length);
    for (const txid of txids) assert.match(txid, new RegExp(`^[a-zA-Z0-9]{${LIMITS.txidAssignedChars}}$`));
  });

  it('draws hex of the length asked, distinct across pool refills', () => {
    const tokens = Array.from({ length: 1000 }, () => randomHex(16));
    assert.equal(new Set(tokens).size, tokens.length);
    for (const token of tokens) assert.match(token, /^[0-9a-f]{32}$/);
  });
});
