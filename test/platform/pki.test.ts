// suite: database-independent
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { certificateSha256, createCa, issueCertificate, positiveSerialHex } from '../../src/platform/pki.ts';

describe('pki', () => {
  it('serials are positive DER integers without padding, every time', () => {
    for (let i = 0; i < 5000; i++) {
      const serial = positiveSerialHex();
      assert.equal(serial.length, 32);
      const first = parseInt(serial.slice(0, 2), 16);
      assert.ok(first >= 1 && first <= 0x7f, serial);
    }
  });

  it('issues certificates OpenSSL parses, chained to the CA', () => {
    const ca = createCa('test CA');
    for (let i = 0; i < 5; i++) {
      const leaf = issueCertificate(ca, { commonName: `leaf ${i}`, usage: 'client' });
      const cert = new X509Certificate(leaf.certPem);
      assert.ok(cert.verify(new X509Certificate(ca.certPem).publicKey));
      assert.match(certificateSha256(leaf.certPem), /^[0-9a-f]{64}$/);
    }
  });
});
