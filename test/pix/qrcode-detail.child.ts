/**
 * Run by payload.test.ts in a child process, so that NODE_EXTRA_CA_CERTS (read once at start-up) and TZ
 * can be set: the official SDK's `pixQrCodeDetail` fetches `https://<location>` with the default trust
 * store, as it would against Efí. Decodes each BR code given as an argument and prints one JSON line.
 */
import fs from 'node:fs';
import { EfiPay } from '../compat/efipay.ts';
import type { CredentialsFile } from '../../src/accounts/credentials.ts';

const credentials = JSON.parse(fs.readFileSync(process.env.PIXD_CREDENTIALS_FILE!, 'utf8')) as CredentialsFile;
// pixQrCodeDetail calls no API: the credentials only satisfy the constructor.
const efi = new EfiPay({
  sandbox: true,
  client_id: credentials.clientId,
  client_secret: credentials.clientSecret,
  certificate: credentials.certificate.p12,
});

const results = [];
for (const pixCopiaECola of process.argv.slice(2)) {
  try {
    results.push({ ok: true, detail: await efi.pixQrCodeDetail({}, { pixCopiaECola }) });
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    results.push({ ok: false, error: `${e.message}${e.cause?.code ? ` (${e.cause.code})` : ''}` });
  }
}
process.stdout.write(JSON.stringify(results) + '\n');
