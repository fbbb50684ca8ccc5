/** SSH key pairs for the SFTP server (its host key) and for accounts (`createSftpKey`). */
import { createRequire } from 'node:module';

/**
 * ssh2 (CommonJS) is loaded with the first key pair, not with the routes that may make one: a production node
 * serves no SFTP unless told to and may never make a key, and loading it is ~40 ms of CPU.
 */
let ssh2: typeof import('ssh2') | undefined;
const loadSsh2 = () => (ssh2 ??= createRequire(import.meta.url)('ssh2') as typeof import('ssh2'));

/** Generations tried before giving up: a malformed pair is rare (about 1 in 700), eight in a row never seen. */
const KEY_PAIR_ATTEMPTS = 8;

/**
 * An ed25519 pair in OpenSSH format that ssh2 itself reads back. ssh2's generator now and then writes a private
 * key its own parser refuses ("Malformed OpenSSH private key", ~0.15 % of pairs on ssh2 1.17): as a host key that
 * stopped the node's start; as an account's key it would be a login that never works. So each pair is parsed
 * before it is used, and a refused one is made again.
 */
export function sshKeyPair(comment?: string): { private: string; public: string } {
  for (let attempt = 0; attempt < KEY_PAIR_ATTEMPTS; attempt++) {
    const { utils } = loadSsh2();
    const pair = utils.generateKeyPairSync('ed25519', comment ? { comment } : {});
    const readable = [pair.private, pair.public].every((key) => !(utils.parseKey(key) instanceof Error));
    if (readable) return pair;
  }
  throw new Error(`ssh2 made ${KEY_PAIR_ATTEMPTS} unreadable ed25519 key pairs in a row`);
}
