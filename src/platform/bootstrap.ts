/**
 * First start: the service's CA, server certificate, webhook client certificate, payload (JWS) signing
 * certificate and token signing key.
 * They live in the database so every node of a cluster serves the same identity; each node also writes
 * the public parts into its data directory for operators and clients. Runs under the migration lock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Database, Sql } from './db/database.ts';
import { MIGRATION_LOCK_ID } from './db/migrate.ts';
import { certificateAltNames, createCa, issueCertificate, type KeyPairPem } from './pki.ts';
import { readState, writeState } from './state.ts';

export interface ServicePki {
  ca: KeyPairPem;
  server: KeyPairPem;
  webhookClient: KeyPairPem;
  /** Signs the payloads served at locations (Pix dynamic QR codes); published with its chain in the JWKS. */
  jws: KeyPairPem;
  tokenSigningKey: Buffer;
  /**
   * The SPI gateway's client certificate: the one identity the SPI boundary's routes accept (src/spi/routes.ts).
   * Written with its key into the data directory (spi-gateway.pem, 0600) for the gateway's operator.
   */
  spiGateway: KeyPairPem;
  files: { caCertificate: string; webhookCertificateChain: string };
  /** What this start created (a first start: all of it), for its progress lines. */
  issued: string[];
}

export async function ensureServicePki(db: Database, config: Config): Promise<ServicePki> {
  const altNames = serverAltNames(config);
  const issued: string[] = [];
  const loadOrCreate = async <T>(sql: Sql, name: string, what: string, create: () => T): Promise<T> => {
    const existing = await readState<T>(sql, name);
    if (existing) return existing;
    const created = create();
    await writeState(sql, name, created);
    issued.push(what);
    return created;
  };
  const pki = await db.withAdvisoryLock(MIGRATION_LOCK_ID, async (sql) => {
    const ca = await loadOrCreate(sql, 'pki.ca', 'the service CA', () => createCa('pixd Root CA'));
    let server = await loadOrCreate(sql, 'pki.server', 'its server certificate', () =>
      issueCertificate(ca, { commonName: 'pixd', usage: 'server', altNames }),
    );
    const served = new Set(certificateAltNames(server.certPem));
    if (!altNames.every((name) => served.has(name))) {
      // The public address changed: reissue so clients connecting by the new name still verify us.
      const names = [...new Set([...served, ...altNames])];
      server = issueCertificate(ca, { commonName: 'pixd', usage: 'server', altNames: names });
      await writeState(sql, 'pki.server', server);
    }
    const webhookClient = await loadOrCreate(sql, 'pki.webhook_client', 'the webhook client certificate', () =>
      issueCertificate(ca, { commonName: 'pixd webhooks', usage: 'client' }),
    );
    // Named for the public hosts: payers' institutions match the signer to the location's domain.
    const jws = await loadOrCreate(sql, 'pki.jws', 'the payload signing certificate', () =>
      issueCertificate(ca, { commonName: 'pixd payload signing', usage: 'server', altNames }),
    );
    const spiGateway = await loadOrCreate(sql, 'pki.spi_gateway', 'the SPI gateway client certificate', () =>
      issueCertificate(ca, { commonName: 'pixd SPI gateway', usage: 'client' }),
    );
    const signing = await loadOrCreate(sql, 'auth.token_signing_key', 'the token signing key', () => ({
      base64: randomBytes(32).toString('base64'),
    }));
    return { ca, server, webhookClient, jws, spiGateway, tokenSigningKey: Buffer.from(signing.base64, 'base64') };
  });
  fs.mkdirSync(config.dataDir, { recursive: true });
  const caCertificate = path.join(config.dataDir, 'ca.pem');
  const webhookCertificateChain = path.join(config.dataDir, 'webhook-client-chain.pem');
  writeIfChanged(caCertificate, pki.ca.certPem);
  writeIfChanged(webhookCertificateChain, pki.webhookClient.certPem + pki.ca.certPem);
  writeIfChanged(spiGatewayFile(config.dataDir), pki.spiGateway.certPem + pki.spiGateway.keyPem, 0o600);
  return { ...pki, files: { caCertificate, webhookCertificateChain }, issued };
}

/** The SPI gateway's certificate and key, one PEM file only the node's user may read. */
export const spiGatewayFile = (dataDir: string) => path.join(dataDir, 'spi-gateway.pem');

function serverAltNames(config: Config): string[] {
  const names = ['localhost', '127.0.0.1'];
  const publicHost = new URL(config.publicUrl).hostname.replace(/^\[|\]$/g, '');
  if (!names.includes(publicHost)) names.push(publicHost);
  if (config.host !== '0.0.0.0' && config.host !== '::' && !names.includes(config.host)) names.push(config.host);
  return names;
}

export function writeIfChanged(file: string, content: string | Buffer, mode = 0o644): void {
  if (fs.existsSync(file) && Buffer.compare(fs.readFileSync(file), Buffer.from(content)) === 0) return;
  fs.writeFileSync(file, content, { mode });
}
