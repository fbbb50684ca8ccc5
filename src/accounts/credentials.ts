/** The credentials.json shape: what an integrator needs to call the service, with absolute file paths. */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { IssuedAccount } from './service.ts';

export interface CredentialsFile {
  baseUrl: string;
  environment: string;
  clientId: string;
  clientSecret: string;
  certificate: { p12: string; pem: string; key: string };
  caCertificate: string;
  webhookCertificateChain: string;
  /** `ispb`: present for an indirect participant (docs/participants.md). */
  account: { nome: string; documento: string; conta: string; payeeCode: string; ispb?: string };
  chaves: string[];
}

/** Writes the client's certificate files under `<dataDir>/certificates/` and returns the credentials. */
export function writeAccountFiles(
  config: Pick<Config, 'dataDir' | 'publicUrl' | 'environment'>,
  issued: IssuedAccount,
  publicFiles: { caCertificate: string; webhookCertificateChain: string },
): CredentialsFile {
  const dir = path.join(config.dataDir, 'certificates');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const base = path.join(dir, issued.clientId);
  const files = { p12: `${base}.p12`, pem: `${base}.pem`, key: `${base}.key.pem` };
  fs.writeFileSync(files.p12, Buffer.from(issued.certificate.p12Base64, 'base64'), { mode: 0o600 });
  fs.writeFileSync(files.pem, issued.certificate.certPem, { mode: 0o600 });
  fs.writeFileSync(files.key, issued.certificate.keyPem, { mode: 0o600 });
  return {
    baseUrl: config.publicUrl,
    environment: config.environment,
    clientId: issued.clientId,
    clientSecret: issued.clientSecret,
    certificate: files,
    caCertificate: publicFiles.caCertificate,
    webhookCertificateChain: publicFiles.webhookCertificateChain,
    account: {
      nome: issued.account.nome,
      documento: issued.account.documento,
      conta: issued.account.conta,
      payeeCode: issued.account.payee_code,
      ...(issued.account.participant_ispb && { ispb: issued.account.participant_ispb }),
    },
    chaves: issued.chaves,
  };
}
