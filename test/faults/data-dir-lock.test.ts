// suite: database-independent
/**
 * One process per embedded data directory: a second server, or a CLI command that would open the database,
 * is refused with one line naming the holder's pid; a lock left by a killed server is taken over.
 * The embedded database is the point, so this file runs on PGlite in both passes of the suite.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { freePort, startTestService, type TestService } from '../helpers/service.ts';
import { runPixd } from '../helpers/cli.ts';

const EMBEDDED = { DATABASE_URL: '' };

const pixd = (args: string[]) => runPixd(args, EMBEDDED);

describe('faults: the embedded data directory has one owner', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService(EMBEDDED);
  });
  after(async () => {
    await svc.close();
  });

  it('refuses a second server and a direct-database command with one line naming the pid', async () => {
    const dir = svc.data.dataDir;
    assert.equal(fs.readFileSync(path.join(dir, 'pixd.lock'), 'utf8').trim(), String(process.pid));
    for (const args of [
      ['start', '--data-dir', dir, '--port', String(await freePort()), '--pages-port', '0'],
      ['migrate', '--data-dir', dir],
    ]) {
      const run = await pixd(args);
      assert.equal(run.status, 1, `${args[0]}: ${run.stdout}${run.stderr}`);
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line, no stack trace: ${run.stderr}`);
      assert.match(lines[0], new RegExp(`^pixd: the data directory .* is in use by pid ${process.pid}\\b`));
    }
    // The running server is untouched and still serves.
    const token = await svc.demo.token();
    assert.equal((await svc.demo.http.request('GET', '/v2/gn/saldo/', { token })).status, 200);
  });

  it('takes over the lock of a process that died', async () => {
    await svc.close({ keepData: true });
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = dead.pid!;
    await new Promise((resolve) => dead.on('exit', resolve));
    fs.writeFileSync(path.join(svc.data.dataDir, 'pixd.lock'), `${deadPid}\n`);
    // Same port: credentials.json, written at first start, names it.
    svc = await startTestService({ ...EMBEDDED, PORT: new URL(svc.baseUrl).port }, { reuse: svc.data });
    assert.equal(fs.readFileSync(path.join(svc.data.dataDir, 'pixd.lock'), 'utf8').trim(), String(process.pid));
    const token = await svc.demo.token();
    assert.equal((await svc.demo.http.request('GET', '/v2/gn/saldo/', { token })).status, 200);
  });
});
