/**
 * JWS signing of the payloads served at locations, and the JWK Set that lets payers' institutions verify
 * them. The Pix standard serves a dynamic QR code's charge as a compact JWS whose header names the key
 * (`kid`), where to fetch it (`jku`, an https URL on our host) and the certificate (`x5t`); the JWK
 * carries the certificate chain (`x5c`) so the verifier can tie the key to our CA.
 */
import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { CompactSign, calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { KeyPairPem } from '../../platform/pki.ts';

/** RS256, as the Bacen API Pix examples sign; an RSA key and every JOSE library support it. */
export const JWS_ALG = 'RS256';
export const JWKS_PATH = '/.well-known/jwks.json';

export interface PayloadSigner {
  jwks: { keys: JWK[] };
  sign(payload: object): Promise<string>;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

export async function payloadSigner(pair: KeyPairPem, caCertPem: string, publicUrl: string): Promise<PayloadSigner> {
  const privateKey: KeyObject = createPrivateKey(pair.keyPem);
  const certificate = new X509Certificate(pair.certPem);
  const x5t = base64url(createHash('sha1').update(certificate.raw).digest());
  const publicJwk = await exportJWK(certificate.publicKey);
  // The RFC 7638 thumbprint: stable for the key, so a restarted or second node names it the same way.
  const kid = await calculateJwkThumbprint(publicJwk);
  const x5c = [certificate.raw, new X509Certificate(caCertPem).raw].map((der) => der.toString('base64'));
  const header = { alg: JWS_ALG, typ: 'JWS', kid, jku: `${publicUrl}${JWKS_PATH}`, x5t };
  return {
    jwks: { keys: [{ ...publicJwk, kid, use: 'sig', alg: JWS_ALG, x5c, x5t }] },
    sign: (payload) =>
      new CompactSign(Buffer.from(JSON.stringify(payload), 'utf8')).setProtectedHeader(header).sign(privateKey),
  };
}
