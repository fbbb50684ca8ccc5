/**
 * Run by sdk.test.ts in a child process, so that NODE_EXTRA_CA_CERTS (read once at start-up) can differ per
 * run. Points the SDK at pixd WITHOUT handing over the CA (`pointSdkAt(baseUrl)`), creates one charge with
 * the PKCS#12 certificate and one with the PEM pair, and prints what happened to each as one JSON line.
 */
import fs from 'node:fs';
import { EfiPay } from './efipay.ts';
import type { CredentialsFile } from '../../src/accounts/credentials.ts';
import { cobBody } from '../helpers/service.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';

const credentials = JSON.parse(fs.readFileSync(process.env.PIXD_CREDENTIALS_FILE!, 'utf8')) as CredentialsFile;
await pointSdkAt(credentials.baseUrl);

type Outcome = { ok: true; txid: string; status: string } | { ok: false; error: string };

async function attempt(certificate: { certificate: string; pemKey?: string }): Promise<Outcome> {
  const efi = new EfiPay({
    sandbox: true,
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
    ...certificate,
  });
  try {
    const cob = await efi.pixCreateImmediateCharge({}, cobBody(credentials.chaves[0], '10.00'));
    return { ok: true, txid: cob.txid, status: cob.status };
  } catch (error) {
    const e = error as { code?: string; message?: string } | string;
    return { ok: false, error: typeof e === 'string' ? e : (e?.code ?? e?.message ?? JSON.stringify(e)) };
  }
}

const p12 = await attempt({ certificate: credentials.certificate.p12 });
const pem = await attempt({ certificate: credentials.certificate.pem, pemKey: credentials.certificate.key });
process.stdout.write(JSON.stringify({ p12, pem }) + '\n');
