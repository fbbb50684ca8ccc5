/**
 * The official Efí Node SDK (`sdk-node-apis-efi`) as an integrator constructs it for the Efí sandbox, with a
 * test node's credentials. It talks to pixd only when made after `pointSdkAt` (src/testing/point-sdk.ts).
 */
import { EfiPay, type EfiPayOptions } from '../compat/efipay.ts';
import fs from 'node:fs';
import path from 'node:path';
import type { Party, TestService } from './service.ts';

/** The node's demo account with its PKCS#12 certificate, unless `options` says otherwise (a PEM pair, a wrong secret). */
export function sdkFor(svc: TestService, options: Partial<EfiPayOptions> = {}): EfiPay {
  const c = svc.service.credentials;
  return new EfiPay({
    sandbox: true,
    client_id: c.clientId,
    client_secret: c.clientSecret,
    certificate: c.certificate.p12,
    ...options,
  });
}

/** The SDK as the integrator of another account constructs it: that party's PEM pair, written into `dir`. */
export function sdkForParty(party: Party, dir: string, name: string): EfiPay {
  const certificate = path.join(dir, `${name}.pem`);
  const pemKey = path.join(dir, `${name}.key.pem`);
  fs.writeFileSync(certificate, party.identity.certPem);
  fs.writeFileSync(pemKey, party.identity.keyPem);
  return new EfiPay({
    sandbox: true,
    client_id: party.clientId,
    client_secret: party.clientSecret,
    certificate,
    pemKey,
  });
}
