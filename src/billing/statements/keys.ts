/** SSH key pairs for the SFTP server (its host key) and for accounts (`createSftpKey`). */
import ssh2 from 'ssh2';

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
    const pair = ssh2.utils.generateKeyPairSync('ed25519', comment ? { comment } : {});
    const readable = [pair.private, pair.public].every((key) => !(ssh2.utils.parseKey(key) instanceof Error));
    if (readable) return pair;
  }
  throw new Error(`ssh2 made ${KEY_PAIR_ATTEMPTS} unreadable ed25519 key pairs in a row`);
}
