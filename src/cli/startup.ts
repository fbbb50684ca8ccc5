/**
 * What `pixd start` tells a person while it starts: each slow first-start step with its time, and a
 * failure they can fix as one line naming the fix (no stack trace).
 */
import net from 'node:net';
import type { Config } from '../config.ts';
import type { Progress } from '../platform/progress.ts';
import { CliError } from './operator-client.ts';
import { parseDatabaseUrl } from '../platform/db/hosts.ts';

export const printProgress: Progress = (step, elapsedMs) =>
  process.stderr.write(`pixd: ${step} (${(elapsedMs / 1000).toFixed(1)} s)\n`);

const portInUse = (config: Config, port: number) =>
  new CliError(
    port === config.pagesPort
      ? `port ${port} on ${config.host} (the pages listener) is in use (another pixd?): stop that process or choose another with --pages-port (PIXD_PAGES_PORT)`
      : port === config.sftpPort
        ? `port ${port} on ${config.host} (the SFTP server) is in use (another pixd?): stop that process or choose another with PIXD_SFTP_PORT (off: no SFTP)`
        : `port ${port} on ${config.host} is in use (another pixd?): stop that process or choose another with --port (PORT)`,
  );

/** Before the slow first-start work: a busy port is known in a millisecond. */
export async function assertPortFree(config: Config): Promise<void> {
  for (const port of [config.port, config.pagesPort]) {
    if (port === 0) continue;
    const probe = net.createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        probe.once('error', reject);
        probe.listen({ port, host: config.host, exclusive: true }, resolve);
      });
    } catch (error) {
      throw (error as { code?: string }).code === 'EADDRINUSE' ? portInUse(config, port) : error;
    } finally {
      probe.close();
    }
  }
}

/** The database named by DATABASE_URL, without its password. */
function databaseOf(config: Config): { where: string; database: string; user: string } {
  const target = parseDatabaseUrl(config.databaseUrl ?? 'postgres://localhost');
  const url = new URL(target.urlFor(target.hosts[0]));
  return {
    where: target.hosts.map(({ host, port }) => `${host}:${port}`).join(', '),
    database: decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username) || 'postgres',
    user: decodeURIComponent(url.username) || 'the current user',
  };
}

/** A start failure a person can fix, as one line with the fix; undefined for anything else (a bug: keep the stack). */
export function explainStartFailure(error: unknown, config: Config): CliError | undefined {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') return portInUse(config, (error as { port?: number }).port ?? config.port);
  if (code === 'EACCES' && (error as { syscall?: string }).syscall === 'listen')
    return new CliError(`not allowed to listen on port ${config.port}: choose a port above 1023 with --port (PORT)`);
  if (code === 'EADDRNOTAVAIL')
    return new CliError(`${config.host} is not an address of this machine: fix --host (HOST)`);
  if (!config.databaseUrl) return undefined;
  const db = databaseOf(config);
  switch (code) {
    case 'ECONNREFUSED':
      return new CliError(
        `PostgreSQL at ${db.where} refused the connection: start it, or fix DATABASE_URL (--database-url)`,
      );
    case '08001':
      // Several hosts and none writable (hosts.ts names each host's reason).
      return new CliError(`${(error as Error).message}: start or promote one, or fix DATABASE_URL`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new CliError(`the PostgreSQL host in DATABASE_URL (${db.where}) does not resolve: fix DATABASE_URL`);
    case '3D000':
      return new CliError(
        `database "${db.database}" does not exist on ${db.where}: create it (createdb ${db.database}) or fix DATABASE_URL`,
      );
    case '28000':
      return new CliError(
        `PostgreSQL at ${db.where} refused the role ${db.user} (${(error as Error).message}): create it (createuser ${db.user}) or fix DATABASE_URL`,
      );
    case '28P01':
      return new CliError(`PostgreSQL at ${db.where} refused the password of ${db.user}: fix DATABASE_URL`);
    default:
      return undefined;
  }
}
