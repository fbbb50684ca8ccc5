/**
 * What a process may adjust in outbound webhook behaviour. Production uses the defaults: the named limits,
 * and trust in the system store plus NODE_EXTRA_CA_CERTS (Node's own default when no `ca` is passed).
 * Tests run pixd in-process, after NODE_EXTRA_CA_CERTS was read, so they hand their receivers' test CA here
 * and shorten timeouts instead of waiting 60 s for a timeout to happen.
 */
import fs from 'node:fs';
import tls from 'node:tls';
import { LIMITS } from '../limits.ts';
import { OUTBOX_DEFAULTS } from '../outbox/outbox.ts';

export interface WebhookSettings {
  /** PEM of CAs trusted in addition to the system store and NODE_EXTRA_CA_CERTS (tests). */
  extraCaPem?: string;
  deliveryTimeoutMs: number;
  /** TCP connect plus TLS handshake of every outbound call, within its timeout. */
  connectTimeoutMs: number;
  registrationTimeoutMs: number;
  openingTimeoutMs: number;
  /** How long a claimed delivery stays with its node (wall time): longer than any timeout above. */
  leaseMs: number;
}

const DEFAULTS: WebhookSettings = {
  deliveryTimeoutMs: LIMITS.webhookDeliveryTimeoutMs,
  connectTimeoutMs: LIMITS.webhookConnectTimeoutMs,
  registrationTimeoutMs: LIMITS.webhookRegistrationTimeoutMs,
  openingTimeoutMs: LIMITS.openingCallbackTimeoutMs,
  leaseMs: OUTBOX_DEFAULTS.leaseMs,
};

let current: WebhookSettings = { ...DEFAULTS };
let generation = 0;

export function webhookSettings(): Readonly<WebhookSettings> {
  return current;
}

/** Changes apply to connections opened afterwards (agents are rebuilt on the next call). */
export function setWebhookSettings(changes: Partial<WebhookSettings>): void {
  current = { ...current, ...changes };
  generation++;
}

export function resetWebhookSettings(): void {
  current = { ...DEFAULTS };
  generation++;
}

/** Bumped on every change, so agent caches know to rebuild. */
export function settingsGeneration(): number {
  return generation;
}

/**
 * The `ca` option for outbound TLS: Node's bundled roots, NODE_EXTRA_CA_CERTS, the configured extra CA, and
 * the service's own CA. Passing `ca` replaces Node's trust list, so the first two are added back. The own CA
 * is for the service's own addresses (a `pixd listen` session, docs/webhooks.md): the server certificate it
 * issued; its client certificates (client-auth usage only) cannot pass as a server.
 */
export function outboundCa(serviceCaPem: string): string[] {
  const extraFile = process.env.NODE_EXTRA_CA_CERTS;
  const fromEnv = extraFile && fs.existsSync(extraFile) ? [fs.readFileSync(extraFile, 'utf8')] : [];
  return [...tls.rootCertificates, ...fromEnv, ...(current.extraCaPem ? [current.extraCaPem] : []), serviceCaPem];
}
