import path from 'node:path';
import { parseAllowList } from './platform/webhooks/destinations.ts';
import { LOG_FORMATS, type LogFormat } from './platform/logging.ts';
import { LIMITS } from './platform/limits.ts';
import { parseDatabaseUrl } from './platform/db/hosts.ts';

export type Environment = 'sandbox' | 'production';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  environment: Environment;
  /** Origin used inside payloads, locations and credentials.json (no trailing slash). */
  publicUrl: string;
  /** PIXD_PUBLIC_URL was set: the origin is the operator's, not derived from host and port. */
  publicUrlGiven: boolean;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** CIDR ranges webhooks may reach although private (PIXD_WEBHOOK_ALLOW); see webhooks/destinations.ts. */
  webhookAllow: string[];
  /** Nodes sharing REDIS_URL's limits: while Redis is out of reach each admits 1/nodes of a limit. */
  nodes: number;
  logLevel: string;
  logFormat: LogFormat;
  /** The pages listener (platform/pages.ts): asks browsers for no client certificate. */
  pagesPort: number;
  /** Origin of the pages listener in links people open (PIXD_PAGES_URL; default from host and pagesPort). */
  pagesUrl: string;
  pagesUrlGiven: boolean;
  /** A directory operation not finished within this many milliseconds answers 504 (PIXD_DICT_TIMEOUT_MS). */
  dictTimeoutMs: number;
  /** Webhook attempt records are deleted past this many days (PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS). */
  webhookAttemptRetentionDays: number;
  /** A request not committed within this many milliseconds rolls back and answers 503 (PIXD_REQUEST_DEADLINE_MS). */
  requestDeadlineMs: number;
  /**
   * An SPI gateway collects this node's outbound messages (PIXD_SPI_GATEWAY=on, production only): sends to other
   * institutions leave as pacs.008 (docs/spi.md). Off: they are refused (destino_externo_indisponivel).
   */
  spiGateway: boolean;
  /**
   * The SFTP server of statement files (docs/statements.md): its port (0 picks a free one), or undefined when
   * off (PIXD_SFTP_PORT; default: a free port in the sandbox, off in production).
   */
  sftpPort: number | undefined;
  /** The SFTP server's host key file (PIXD_SFTP_HOST_KEY; default `<data dir>/sftp_host_key`, made on first use). */
  sftpHostKey: string;
  /**
   * The SMTP server billing e-mails leave through (PIXD_SMTP_URL, `smtp://user:pass@host:port` or `smtps://…`);
   * undefined: no sender (production refuses e-mails, the sandbox keeps them in its mailbox). A secret: never logged.
   */
  smtpUrl: string | undefined;
  /** The From of those e-mails (PIXD_MAIL_FROM; default `pixd <no-reply@host of the public URL>`). */
  mailFrom: string;
}

export class ConfigError extends Error {}

/** Every setting is an environment variable or the matching flag of the `pixd` command; flags win. */
export const SETTING_FLAGS = [
  ['--port', 'PORT', 'port to listen on (default 8443; 0 picks a free one)'],
  ['--host', 'HOST', 'address to listen on (default 127.0.0.1)'],
  ['--data-dir', 'PIXD_DATA_DIR', 'embedded database, certificates and credentials (default ./.pixd)'],
  ['--env', 'PIXD_ENV', 'sandbox (default) or production'],
  ['--public-url', 'PIXD_PUBLIC_URL', 'origin written into payloads, locations and credentials'],
  ['--database-url', 'DATABASE_URL', 'a PostgreSQL server instead of the embedded database'],
  ['--redis-url', 'REDIS_URL', 'Redis shared by several nodes for rate limits'],
  ['--nodes', 'PIXD_NODES', 'nodes sharing REDIS_URL (each admits its share while Redis is down)'],
  ['--webhook-allow', 'PIXD_WEBHOOK_ALLOW', 'CIDR ranges webhooks may reach although private'],
  ['--dict-timeout-ms', 'PIXD_DICT_TIMEOUT_MS', 'directory operations answer 504 past this (default 5000)'],
  [
    '--request-deadline-ms',
    'PIXD_REQUEST_DEADLINE_MS',
    'a request not committed by then rolls back and answers 503 (default 10000)',
  ],
  [
    '--webhook-attempt-retention-days',
    'PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS',
    'webhook attempt records older than this are deleted (default 30)',
  ],
  [
    '--pages-port',
    'PIXD_PAGES_PORT',
    'port of the pages listener, no client certificate asked (default PORT + 1; 0 picks one)',
  ],
  ['--spi-gateway', 'PIXD_SPI_GATEWAY', 'on: an SPI gateway collects sends to other institutions (production)'],
  [
    '--sftp-port',
    'PIXD_SFTP_PORT',
    'port of the SFTP server of statement files, or off (sandbox: a free port; production: off)',
  ],
  ['--sftp-host-key', 'PIXD_SFTP_HOST_KEY', "the SFTP server's host key file (default <data dir>/sftp_host_key)"],
  ['--smtp-url', 'PIXD_SMTP_URL', 'smtp://user:pass@host:port or smtps://… that billing e-mails are sent through'],
  ['--mail-from', 'PIXD_MAIL_FROM', 'From address of billing e-mails (default pixd <no-reply@public host>)'],
  ['--pages-url', 'PIXD_PAGES_URL', 'origin of the pages listener written into links people open'],
  ['--log-level', 'LOG_LEVEL', 'fatal, error, warn, info (default), debug, trace or silent'],
  ['--log-format', 'LOG_FORMAT', 'auto (default: pretty on a terminal, JSON otherwise), json or pretty'],
] as const;

/** The settings a command runs with: the environment, overridden by the flags given (keyed by environment name). */
export function settingsWith(
  flags: Partial<Record<(typeof SETTING_FLAGS)[number][1], string>>,
  env: NodeJS.ProcessEnv,
): Record<string, string | undefined> {
  const settings: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(flags)) if (value !== undefined) settings[name] = value;
  return settings;
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
  if (databaseUrl) parseDatabaseUrlSetting(databaseUrl);
  const redisUrl = settings.REDIS_URL || undefined;
  if (redisUrl) parseUrl('REDIS_URL', redisUrl, ['redis:', 'rediss:']);
  const nodes = Number(settings.PIXD_NODES || '1');
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 1000)
    throw new ConfigError(`PIXD_NODES must be a whole number from 1 to 1000, got "${settings.PIXD_NODES}"`);
  const pagesPort = settings.PIXD_PAGES_PORT
    ? parsePort(settings.PIXD_PAGES_PORT, 'PIXD_PAGES_PORT')
    : port === 0 || port === 65535
      ? 0
      : port + 1;
  if (pagesPort !== 0 && pagesPort === port) throw new ConfigError(`PIXD_PAGES_PORT must differ from PORT (${port})`);
  const pagesUrl = settings.PIXD_PAGES_URL
    ? parseUrl('PIXD_PAGES_URL', settings.PIXD_PAGES_URL, ['https:'])
    : undefined;
  const webhookAllow = parseAllowList(settings.PIXD_WEBHOOK_ALLOW);
  if (!Array.isArray(webhookAllow)) throw new ConfigError(`PIXD_WEBHOOK_ALLOW: ${webhookAllow.error}`);
  const dictTimeoutMs = Number(settings.PIXD_DICT_TIMEOUT_MS ?? LIMITS.dictOperationTimeoutMsDefault);
  if (!Number.isSafeInteger(dictTimeoutMs) || dictTimeoutMs < 0)
    throw new ConfigError(
      `PIXD_DICT_TIMEOUT_MS must be a whole number of milliseconds, got "${settings.PIXD_DICT_TIMEOUT_MS}"`,
    );
  const requestDeadlineMs = Number(settings.PIXD_REQUEST_DEADLINE_MS ?? LIMITS.requestDeadlineMsDefault);
  if (!Number.isSafeInteger(requestDeadlineMs) || requestDeadlineMs < 1)
    throw new ConfigError(
      `PIXD_REQUEST_DEADLINE_MS must be a whole positive number of milliseconds, got "${settings.PIXD_REQUEST_DEADLINE_MS}"`,
    );
  const retention = settings.PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS;
  const webhookAttemptRetentionDays = Number(retention || LIMITS.webhookAttemptRetentionDaysDefault);
  if (
    !Number.isSafeInteger(webhookAttemptRetentionDays) ||
    webhookAttemptRetentionDays < 1 ||
    webhookAttemptRetentionDays > LIMITS.webhookAttemptRetentionDaysMax
  )
    throw new ConfigError(
      `PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS must be a whole number of days from 1 to ${LIMITS.webhookAttemptRetentionDaysMax}, got "${retention}"`,
    );
  const spiGateway = settings.PIXD_SPI_GATEWAY || 'off';
  if (spiGateway !== 'on' && spiGateway !== 'off')
    throw new ConfigError(`PIXD_SPI_GATEWAY must be "on" or "off", got "${spiGateway}"`);
  const smtpUrl = settings.PIXD_SMTP_URL || undefined;
  if (smtpUrl) parseUrl('PIXD_SMTP_URL', smtpUrl, ['smtp:', 'smtps:'], true);
  const sftpPort = settings.PIXD_SFTP_PORT || (environment === 'sandbox' ? '0' : 'off');
  return {
    sftpPort: sftpPort === 'off' ? undefined : parsePort(sftpPort, 'PIXD_SFTP_PORT'),
    sftpHostKey: path.resolve(cwd, settings.PIXD_SFTP_HOST_KEY || path.join(dataDir, 'sftp_host_key')),
    spiGateway: spiGateway === 'on' && environment === 'production',
    host,
    port,
    dataDir,
    environment,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    publicUrlGiven: Boolean(settings.PIXD_PUBLIC_URL),
    databaseUrl,
    redisUrl,
    nodes,
    webhookAllow,
    logLevel: parseLogLevel(settings.LOG_LEVEL || 'info'),
    logFormat: parseLogFormat(settings.LOG_FORMAT || 'auto'),
    pagesPort,
    // Behind a proxy (PIXD_PUBLIC_URL given) the pages are reached at the same public origin unless said otherwise.
    pagesUrl: (pagesUrl ?? (settings.PIXD_PUBLIC_URL ? publicUrl : `https://${publicHost(host)}:${pagesPort}`)).replace(
      /\/+$/,
      '',
    ),
    pagesUrlGiven: pagesUrl !== undefined || Boolean(settings.PIXD_PUBLIC_URL),
    dictTimeoutMs,
    webhookAttemptRetentionDays,
    requestDeadlineMs,
    smtpUrl,
    mailFrom: settings.PIXD_MAIL_FROM || `pixd <no-reply@${new URL(publicUrl).hostname}>`,
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parseLogLevel(raw: string): string {
  if (!LOG_LEVELS.includes(raw))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
}

function parseLogFormat(raw: string): LogFormat {
  if (!(LOG_FORMATS as readonly string[]).includes(raw))
    throw new ConfigError(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, got "${raw}"`);
  return raw as LogFormat;
}

function parsePort(raw: string, name = 'PORT'): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 0 || port > 65535)
    throw new ConfigError(`${name} must be an integer from 0 to 65535, got "${raw}"`);
  return port;
}

/** `secret`: the URL may hold a password, so an error names the setting but does not quote it. */
function parseUrl(name: string, raw: string, protocols: string[], secret = false): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(secret ? `${name} is not a valid URL` : `${name} is not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(url.protocol))
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${url.protocol}"`);
  return raw;
}

/** libpq's form, several hosts included (platform/db/hosts.ts): `postgres://u@h1:5432,h2:5432/db?...`. */
function parseDatabaseUrlSetting(raw: string): void {
  if (!/^postgres(ql)?:\/\//.test(raw))
    throw new ConfigError(`DATABASE_URL must use postgres: or postgresql:, got "${raw.split('//')[0]}"`);
  try {
    parseDatabaseUrl(raw);
  } catch (error) {
    throw new ConfigError(`DATABASE_URL is not a valid URL (${(error as Error).message}): "${raw}"`);
  }
}

/** The origin clients call once the server listens on `port` (which PORT=0 only then knows). */
export function servedBaseUrl(config: Pick<Config, 'host' | 'publicUrl' | 'publicUrlGiven'>, port: number): string {
  return config.publicUrlGiven ? config.publicUrl : `https://${publicHost(config.host)}:${port}`;
}

/** A wildcard bind address is not something a client can dial; the loopback name is. */
function publicHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
}
