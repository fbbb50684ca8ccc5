/**
 * Child process: one pixd node, started as `pixd start` would start it, in the data directory the parent
 * gives (PIXD_DATA_DIR). PGlite unless DATABASE_URL is set. Logging is off (LOG_LEVEL, default silent).
 */
import net from 'node:net';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/runtime.ts';
import { operatorFilePath } from '../src/operator/secret.ts';
import { childLifecycle } from './processes.ts';

export interface PixdReady {
  baseUrl: string;
  database: 'pglite' | 'postgres';
  credentialsPath: string;
  operatorPath: string;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const lifecycle = childLifecycle();
const dataDir = process.env.PIXD_DATA_DIR;
if (!dataDir) throw new Error('PIXD_DATA_DIR must name the data directory');
const config = loadConfig({
  PIXD_DATA_DIR: dataDir,
  PORT: String(await freePort()),
  PIXD_PAGES_PORT: '0',
  PIXD_ENV: process.env.PIXD_ENV || 'production',
  LOG_LEVEL: process.env.LOG_LEVEL || 'silent',
  DATABASE_URL: process.env.DATABASE_URL,
  // A production node calling a receiver on loopback (the webhook benches) must be allowed to.
  PIXD_WEBHOOK_ALLOW: process.env.PIXD_WEBHOOK_ALLOW,
});
const service = await startService(config);
const ready: PixdReady = {
  baseUrl: service.credentials.baseUrl,
  database: service.ctx.db.kind,
  credentialsPath: service.credentialsPath,
  operatorPath: operatorFilePath(dataDir),
};
lifecycle.ready(ready, () => service.close());
