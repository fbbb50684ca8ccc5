/**
 * The card keys, created once and shared by every node through service_state:
 * - an RSA key pair: browsers encrypt card data with the public half (GET /v1/pubkey); only this service can
 *   read it;
 * - the vault key (AES-256-GCM) that seals the card data kept behind a payment token.
 * Whoever creates them first wins (insert ... on conflict do nothing), so concurrent first starts agree.
 */
import { createCipheriv, createDecipheriv, generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import type { Sql } from '../../platform/db/database.ts';
import { readState } from '../../platform/state.ts';
import { LIMITS } from '../../platform/limits.ts';

const STATE_NAME = 'billing_card_keys';

export interface CardKeys {
  publicKeyPem: string;
  privateKeyPem: string;
  vaultKeyBase64: string;
}

export async function cardKeys(sql: Sql): Promise<CardKeys> {
  let keys = await readState<CardKeys>(sql, STATE_NAME);
  if (!keys) {
    const pair = generateKeyPairSync('rsa', { modulusLength: LIMITS.billingCardKeyBits });
    const created: CardKeys = {
      publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      vaultKeyBase64: randomBytes(32).toString('base64'),
    };
    await sql.query(
      `insert into service_state (name, value, updated_at) values ($1, $2::jsonb, now()) on conflict (name) do nothing`,
      [STATE_NAME, JSON.stringify(created)],
    );
    keys = (await readState<CardKeys>(sql, STATE_NAME))!;
  }
  return keys;
}

/** The public key as the browser libraries take it: base64 DER (SubjectPublicKeyInfo), no PEM armour. */
export const publicKeyBase64 = (keys: CardKeys) => keys.publicKeyPem.replace(/-----[^-]+-----|\s+/g, '');

/**
 * RSA PKCS#1 v1.5 (what JSEncrypt, inside payment-token-efi and our library, produces). Node 20's OpenSSL 3.0
 * refuses v1.5 private decryption (CVE-2023-46809), so node-forge does it. Every failure (padding, JSON,
 * fields) is answered with one generic error by the caller, so the endpoint is no padding oracle.
 */
export function decryptCardData(keys: CardKeys, base64: string): string {
  const privateKey = forge.pki.privateKeyFromPem(keys.privateKeyPem) as forge.pki.rsa.PrivateKey;
  const bytes = privateKey.decrypt(forge.util.decode64(base64), 'RSAES-PKCS1-V1_5');
  return forge.util.decodeUtf8(bytes);
}

export function sealVault(keys: CardKeys, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keys.vaultKeyBase64, 'base64'), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64')).join('.');
}

export function openVault(keys: CardKeys, entry: string): string {
  const [iv, tag, sealed] = entry.split('.').map((p) => Buffer.from(p, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keys.vaultKeyBase64, 'base64'), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
}
