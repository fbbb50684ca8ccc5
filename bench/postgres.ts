/** The PostgreSQL side of a run: a database of its own, and which server processes work for it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/runtime.ts';
import { onCleanup } from './lifecycle.ts';

export interface FreshDatabase {
  url: string;
  /** Server version, e.g. "15.20". */
  version: string;
  /** Client backends connected to the database: pixd's pool. */
  backendPids(): Promise<number[]>;
  drop(): Promise<void>;
}

/**
 * A fresh database for one run, dropped when the target closes (or the bench is interrupted). `suffix`
 * tells apart several databases of one run (the sandbox pixd's, beside the production one's).
 */
export async function freshDatabase(adminUrl: string, suffix?: string): Promise<FreshDatabase> {
  const name = `pixd_bench_${process.pid}${suffix ? `_${suffix}` : ''}`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const drop = () => admin(async (client) => void (await client.query(`drop database if exists ${name} with (force)`)));
  const forget = onCleanup(drop);
  let version: string;
  try {
    version = await admin(async (client) => {
      await client.query(`drop database if exists ${name} with (force)`);
      await client.query(`create database ${name}`);
      return (await client.query<{ v: string }>(`select current_setting('server_version') as v`)).rows[0].v;
    });
  } catch (error) {
    await drop().catch(() => undefined);
    forget();
    throw error;
  }
  /** The connections pixd's pool holds (not autovacuum, which works on its own schedule). */
  const backendPids = () =>
    admin(async (client) => {
      const sql = "select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend'";
      return (await client.query<{ pid: number }>(sql, [name])).rows.map((r) => r.pid);
    });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    version: version.split(' ')[0],
    backendPids,
    async drop() {
      await drop();
      forget();
    },
  };
}

/**
 * A sandbox pixd in this process on a fresh PostgreSQL database and data directory, for a standalone bench;
 * `close` stops it and removes both.
 */
export async function sandboxOnFreshDatabase(adminUrl: string, name: string) {
  const database = await freshDatabase(adminUrl, name);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `pixd-bench-${name}-`));
  const config = loadConfig({
    PIXD_DATA_DIR: dataDir,
    PORT: '0',
    PIXD_PAGES_PORT: '0',
    PIXD_ENV: 'sandbox',
    LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
  });
  const service = await startService(config, { logger: false });
  return {
    service,
    database,
    async close() {
      await service.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
