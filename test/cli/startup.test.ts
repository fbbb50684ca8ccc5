// suite: database-independent
/**
 * `pixd start` as a person meets it: the slow first-start steps told with their times, and failures they can
 * fix told in one line naming the fix, each through the real command in a child process.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { runPixd } from '../helpers/cli.ts';

const BIN = path.resolve('bin/pixd.js');
/** The embedded database whichever pass of the suite runs this file: the steps told are the first start's. */
const EMBEDDED = { DATABASE_URL: '', LOG_LEVEL: 'warn' };

/** Starts `pixd start` until its summary line; returns what it wrote to stderr by then, and stops it. */
async function startAndStop(dataDir: string): Promise<string[]> {
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, ...EMBEDDED },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = once(child, 'exit');
  try {
    for await (const line of createInterface({ input: child.stdout! })) if (line.includes(' listening on ')) break;
    assert.equal(child.exitCode, null, `pixd start exited: ${stderr.join('\n')}`);
    return [...stderr];
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe('pixd start', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-start-'));
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('tells each first-start step with its time, and nothing of the kind on a restart', async () => {
    const dataDir = path.join(scratch, 'first');
    const first = await startAndStop(dataDir);
    const step = (pattern: string) =>
      assert.ok(
        first.some((line) => new RegExp(`^pixd: ${pattern} \\(\\d+\\.\\d s\\)$`).test(line)),
        `no "${pattern}" line in:\n${first.join('\n')}`,
      );
    step(`created the embedded database in ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    step('issued the service CA, its server certificate, the webhook client certificate, .*');
    step('created the demo account \\(.*credentials\\.json\\)');
    const restart = await startAndStop(dataDir);
    assert.deepEqual(
      restart.filter((line) => /^pixd: (created|issued|applied)/.test(line)),
      [],
    );
  });

  it('refuses a busy port in one line before creating anything', async () => {
    const busy = net.createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    const { port } = busy.address() as net.AddressInfo;
    try {
      const dataDir = path.join(scratch, 'busy');
      const run = await runPixd(['start', '--port', String(port), '--data-dir', dataDir], EMBEDDED);
      assert.equal(run.status, 1);
      assert.equal(
        run.stderr,
        `pixd: port ${port} on 127.0.0.1 is in use (another pixd?): stop that process or choose another with --port (PORT)\n`,
      );
      assert.equal(fs.existsSync(dataDir), false, 'the data directory was created before the port was checked');
    } finally {
      busy.close();
    }
  });

  it('names the fix when PostgreSQL refuses: no server, no database, no role', async () => {
    const closed = await freePort();
    const cases: [string, RegExp][] = [
      [
        `postgres://postgres@127.0.0.1:${closed}/postgres`,
        /^pixd: PostgreSQL at 127\.0\.0\.1:\d+ refused the connection: start it, or fix DATABASE_URL/,
      ],
      [
        'postgres://postgres@127.0.0.1:5432/pixd_no_such_database',
        /^pixd: database "pixd_no_such_database" does not exist on 127\.0\.0\.1:5432: create it \(createdb pixd_no_such_database\)/,
      ],
      [
        'postgres://pixd_no_such_role@127.0.0.1:5432/postgres',
        /^pixd: PostgreSQL at 127\.0\.0\.1:5432 refused the role pixd_no_such_role .*createuser pixd_no_such_role/,
      ],
      [
        `postgres://postgres@127.0.0.1:${closed},127.0.0.1:${closed + 1}/postgres?target_session_attrs=read-write`,
        /^pixd: no writable PostgreSQL host in DATABASE_URL \(127\.0\.0\.1:\d+: .*; 127\.0\.0\.1:\d+: .*\): start or promote one/,
      ],
    ];
    for (const [url, message] of cases) {
      const run = await runPixd(['start', '--port', '0', '--data-dir', path.join(scratch, 'pg')], {
        DATABASE_URL: url,
        LOG_LEVEL: 'warn',
      });
      assert.equal(run.status, 1, url);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, message);
    }
  });
});
