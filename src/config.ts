import path from 'node:path';
import { parseAllowList } from './platform/webhooks/destinations.ts';

export type Environment = 'sandbox' | 'production';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  environment: Environment;
  /** Origin used inside payloads, locations and credentials.json (no trailing slash). */
  publicUrl: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** CIDR ranges webhooks may reach although private (PIXD_WEBHOOK_ALLOW); see webhooks/destinations.ts. */
  webhookAllow: string[];
  /** Nodes sharing REDIS_URL's limits: while Redis is out of reach each admits 1/nodes of a limit. */
  nodes: number;
  logLevel: string;
}

export class ConfigError extends Error {}

const FLAG_TO_ENV: Record<string, string> = {
  '--port': 'PORT',
  '--host': 'HOST',
  '--data-dir': 'PIXD_DATA_DIR',
  '--env': 'PIXD_ENV',
  '--public-url': 'PIXD_PUBLIC_URL',
  '--database-url': 'DATABASE_URL',
  '--redis-url': 'REDIS_URL',
  '--nodes': 'PIXD_NODES',
  '--webhook-allow': 'PIXD_WEBHOOK_ALLOW',
  '--log-level': 'LOG_LEVEL',
};

/** Flags override the environment; both name the same settings. Returns the unconsumed arguments too. */
export function settingsFrom(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { settings: Record<string, string | undefined>; rest: string[] } {
  const settings: Record<string, string | undefined> = { ...env };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const name = FLAG_TO_ENV[flag];
    if (!name) {
      rest.push(argv[i]);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    settings[name] = value;
  }
  return { settings, rest };
}

export function loadConfig(settings: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const host = settings.HOST || '127.0.0.1';
  const port = parsePort(settings.PORT ?? '8443');
  const environment = settings.PIXD_ENV || 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new ConfigError(`PIXD_ENV must be "sandbox" or "production", got "${environment}"`);
  }
  const dataDir = path.resolve(cwd, settings.PIXD_DATA_DIR || '.pixd');
  const publicUrl = parseUrl('PIXD_PUBLIC_URL', settings.PIXD_PUBLIC_URL || `https://${publicHost(host)}:${port}`, [
    'https:',
  ]);
  const databaseUrl = settings.DATABASE_URL || undefined;
  if (databaseUrl) parseUrl('DATABASE_URL', databaseUrl, ['postgres:', 'postgresql:']);
  const redisUrl = settings.REDIS_URL || undefined;
  if (redisUrl) parseUrl('REDIS_URL', redisUrl, ['redis:', 'rediss:']);
  const nodes = Number(settings.PIXD_NODES || '1');
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 1000)
    throw new ConfigError(`PIXD_NODES must be a whole number from 1 to 1000, got "${settings.PIXD_NODES}"`);
  const webhookAllow = parseAllowList(settings.PIXD_WEBHOOK_ALLOW);
  if (!Array.isArray(webhookAllow)) throw new ConfigError(`PIXD_WEBHOOK_ALLOW: ${webhookAllow.error}`);
  return {
    host,
    port,
    dataDir,
    environment,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    databaseUrl,
    redisUrl,
    nodes,
    webhookAllow,
    logLevel: settings.LOG_LEVEL || 'info',
  };
}

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 0 || port > 65535)
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${raw}"`);
  return port;
}

function parseUrl(name: string, raw: string, protocols: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(url.protocol))
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${url.protocol}"`);
  return raw;
}

/** A wildcard bind address is not something a client can dial; the loopback name is. */
function publicHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
}
