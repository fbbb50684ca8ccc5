/**
 * A start that fails after it opened things (the database, the clock sync, the HTTPS and pages listeners)
 * closes all of them again: in a test process the ports are free and the data directory can be started again,
 * and `pixd start` exits with one line naming the fix and status 1. The failure is forced late: the SFTP
 * server, the last listener a start opens, is given a port that is taken.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/runtime.ts';
import { seededData, type SeededData } from '../../src/testing/template.ts';
import { freePort } from '../../src/testing/ports.ts';
import { runPixd } from '../helpers/cli.ts';

/** A port held by another listener for the whole file. */
async function occupiedPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    release: async () => {
      server.close();
      await once(server, 'close');
    },
  };
}

/** Whether a listener can bind `port` now (nothing of the failed start kept it). */
async function canListen(port: number): Promise<boolean> {
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ port, host: '127.0.0.1', exclusive: true }, resolve);
    });
    probe.close();
    await once(probe, 'close');
    return true;
  } catch {
    return false;
  }
}

describe('a start that fails after listening', () => {
  let busy: Awaited<ReturnType<typeof occupiedPort>>;
  let data: SeededData;
  let settings: Record<string, string>;

  before(async () => {
    busy = await occupiedPort();
    const port = await freePort();
    data = await seededData(`https://127.0.0.1:${port}`, {
      adminUrl: process.env.DATABASE_URL || undefined,
      dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-start-failure-')),
    });
    settings = {
      PIXD_DATA_DIR: data.dataDir,
      PORT: String(port),
      PIXD_PAGES_PORT: String(await freePort()),
      PIXD_ENV: 'sandbox',
      LOG_LEVEL: 'silent',
      PIXD_SFTP_PORT: String(busy.port),
      ...(data.databaseUrl && { DATABASE_URL: data.databaseUrl }),
    };
  });
  after(async () => {
    await busy.release();
    await data.discard();
  });

  it('in a test process: rejects, and leaves both ports free and the data directory startable', async () => {
    await assert.rejects(startService(loadConfig(settings), { logger: false }), { code: 'EADDRINUSE' });
    assert.ok(await canListen(Number(settings.PORT)), 'the HTTPS port is free again');
    assert.ok(await canListen(Number(settings.PIXD_PAGES_PORT)), 'the pages port is free again');
    // The embedded database's lock (our own pid) and a PostgreSQL pool would refuse or leak here otherwise.
    const service = await startService(loadConfig({ ...settings, PIXD_SFTP_PORT: '0' }), { logger: false });
    await service.close();
  });

  it('pixd start: exits with status 1 and one line naming the setting, its ports free', async () => {
    const run = await runPixd(['start'], settings);
    assert.equal(run.status, 1, run.stderr);
    assert.equal(
      run.stderr,
      `pixd: port ${busy.port} on 127.0.0.1 (the SFTP server) is in use (another pixd?): stop that process or choose another with PIXD_SFTP_PORT (off: no SFTP)\n`,
    );
    assert.ok(await canListen(Number(settings.PORT)), 'the HTTPS port is free again');
    assert.ok(await canListen(Number(settings.PIXD_PAGES_PORT)), 'the pages port is free again');
  });
});
