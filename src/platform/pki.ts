/**
 * The service's own small CA: it signs the server certificate, the webhook client certificate and every
 * application's client certificate. Keys come from node:crypto (native, fast); node-forge only assembles
 * X.509 and PKCS#12, which node:crypto cannot build.
 */
import { createHash, generateKeyPair, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

const CERT_VALIDITY_DAYS = 825;
const CA_VALIDITY_DAYS = 3650;
const RSA_MODULUS_BITS = 2048;

const generateRsaKey = promisify(generateKeyPair);

/**
 * Keys generated ahead on libuv's threads while the main thread does other work: a first start needs five
 * (CA, server, webhook client, payload signing, demo application), a second or more of CPU that would
 * otherwise run only once the database is ready. Each is taken once, and only from this process's memory.
 */
const reserve: string[] = [];

export async function generateKeysAhead(count: number): Promise<void> {
  const keys = await Promise.all(
    Array.from({ length: count }, () => generateRsaKey('rsa', { modulusLength: RSA_MODULUS_BITS })),
  );
  reserve.push(...keys.map(({ privateKey }) => privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()));
}

function newKeys(): { forgeKey: forge.pki.rsa.PrivateKey; keyPem: string; publicKey: forge.pki.rsa.PublicKey } {
  const keyPem =
    reserve.pop() ??
    generateKeyPairSync('rsa', { modulusLength: RSA_MODULUS_BITS })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString();
  const forgeKey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  return { forgeKey, keyPem, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}

/**
 * 16 random bytes as an even-length hex string whose first byte is 0x01..0x7f: a positive DER integer
 * with no padding byte. (An odd-length string gets zero-padded by forge, and a `00 00` prefix is
 * illegal DER that OpenSSL refuses.)
 */
export function positiveSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return bytes.toString('hex');
}

function baseCertificate(publicKey: forge.pki.PublicKey, days: number, now: Date): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = positiveSerialHex();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + days * 86_400_000);
  return cert;
}

export function createCa(commonName: string, now = new Date()): KeyPairPem {
  const keys = newKeys();
  const cert = baseCertificate(keys.publicKey, CA_VALIDITY_DAYS, now);
  const subject = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'pixd' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.forgeKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

export interface IssueOptions {
  commonName: string;
  usage: 'server' | 'client';
  /** DNS names and IP addresses (server certificates). */
  altNames?: string[];
  now?: Date;
}

export function issueCertificate(ca: KeyPairPem, options: IssueOptions): KeyPairPem {
  const keys = newKeys();
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem);
  const cert = baseCertificate(keys.publicKey, CERT_VALIDITY_DAYS, options.now ?? new Date());
  cert.setSubject([
    { name: 'commonName', value: options.commonName },
    { name: 'organizationName', value: 'pixd' },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  const extensions: object[] = [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: options.usage === 'server', clientAuth: options.usage === 'client' },
  ];
  if (options.altNames?.length) {
    extensions.push({
      name: 'subjectAltName',
      altNames: options.altNames.map((n) => (/^[\d.]+$|:/.test(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    });
  }
  cert.setExtensions(extensions);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/**
 * PKCS#12 with an empty passphrase, as the official SDK loads it. The CA rides along in the bag: Node adds
 * a PFX's extra certificates to the agent's trust store, so an SDK agent built from this file alone trusts
 * our server without NODE_EXTRA_CA_CERTS.
 */
export function toPkcs12(pair: KeyPairPem, caCertPem: string): Buffer {
  const asn1 = forge.pkcs12.toPkcs12Asn1(
    forge.pki.privateKeyFromPem(pair.keyPem),
    [forge.pki.certificateFromPem(pair.certPem), forge.pki.certificateFromPem(caCertPem)],
    '',
    { algorithm: '3des', friendlyName: 'pixd' },
  );
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

/** Lower-case hex SHA-256 of the certificate's DER: how an application's certificate is recognised. */
export function certificateSha256(certPemOrDer: string | Buffer): string {
  const der = typeof certPemOrDer === 'string' ? new X509Certificate(certPemOrDer).raw : certPemOrDer;
  return createHash('sha256').update(der).digest('hex');
}

export function certificateAltNames(certPem: string): string[] {
  const san = new X509Certificate(certPem).subjectAltName ?? '';
  return san
    .split(',')
    .map((part) => part.trim().replace(/^(DNS|IP Address):/, ''))
    .filter(Boolean);
}
