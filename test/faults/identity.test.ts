/**
 * A data directory remembers its service. If its embedded database goes missing, pixd refuses to start a
 * new service silently (new CA, dead credentials), makes no new database there, and says how to recover;
 * `--reinitialize` starts over.
 * State files are written atomically, and a damaged one is a one-line error, not a stack trace.
 * The embedded database is the point, so this file runs on PGlite in both passes of the suite.
 */
// suite: serial (three first starts of an embedded database, two of them in CLI processes): run alone.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, startTestService, type TestService } from '../helpers/service.ts';
import { DamagedDataDir } from '../../src/platform/db/embedded-check.ts';
import { runPixd } from '../helpers/cli.ts';

const EMBEDDED = { DATABASE_URL: '' };

const pixd = (args: string[]) => runPixd(args, { ...EMBEDDED, LOG_LEVEL: 'silent' });

describe('faults: the data directory and its database belong to one service', () => {
  let svc: TestService | undefined;
  after(async () => {
    await svc?.close();
  });

  it('refuses a data directory whose database went missing, until --reinitialize', async () => {
    svc = await startTestService(EMBEDDED);
    const dir = svc.data.dataDir;
    const port = new URL(svc.baseUrl).port;
    const oldClient = svc.demo.clientId;
    const identity = JSON.parse(fs.readFileSync(path.join(dir, 'identity.json'), 'utf8'));
    assert.match(identity.serviceId, /^[0-9a-f-]{36}$/);
    await svc.close({ keepData: true });
    const data = svc.data;
    svc = undefined;
    const cluster = path.join(dir, 'pgdata');
    fs.rmSync(cluster, { recursive: true, force: true });

    await assert.rejects(startTestService({ ...EMBEDDED, PORT: port }, { reuse: data }), (error) => {
      assert.ok(error instanceof DamagedDataDir);
      assert.match(error.message, new RegExp(`belongs to an existing service \\(id ${identity.serviceId}\\)`));
      assert.match(error.message, /restore it from a backup, or start over .*--reinitialize/);
      return true;
    });
    assert.ok(!fs.existsSync(cluster), 'the refused start left no new, empty database behind');
    for (const command of [['start', '--port', String(await freePort()), '--pages-port', '0'], ['migrate']]) {
      const cli = await pixd([...command, '--data-dir', dir]);
      assert.equal(cli.status, 1, `pixd ${command[0]}: ${cli.stdout}`);
      assert.equal(cli.stderr.trim().split('\n').length, 1, `one line: ${cli.stderr}`);
      assert.match(cli.stderr, /^pixd: the data directory .* belongs to an existing service .* is gone: restore it/);
      assert.ok(!fs.existsSync(cluster), `pixd ${command[0]} left no new, empty database behind`);
    }

    svc = await startTestService({ ...EMBEDDED, PORT: port }, { reuse: data, reinitialize: true });
    assert.notEqual(svc.demo.clientId, oldClient, 'a new service, with new credentials');
    const token = await svc.demo.token();
    assert.equal((await svc.demo.http.request('GET', '/v2/gn/saldo/', { token })).status, 200);
  });

  it('a truncated credentials.json is a one-line error naming the file', async () => {
    const dir = svc!.data.dataDir;
    await svc!.close({ keepData: true });
    const data = svc!.data;
    svc = undefined;
    const file = path.join(dir, 'credentials.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').slice(0, 40));
    const cli = await pixd(['start', '--data-dir', dir, '--port', String(await freePort()), '--pages-port', '0']);
    assert.equal(cli.status, 1);
    assert.equal(cli.stderr.trim().split('\n').length, 1, `one line: ${cli.stderr}`);
    assert.match(cli.stderr, /credentials\.json is damaged/);
    await data.discard();
  });
});
