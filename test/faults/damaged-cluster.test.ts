// suite: database-independent
/**
 * A damaged embedded database is refused at start, in one line naming what is wrong and the fix, through the
 * real command: a missing or garbled `global/pg_control` (PGlite itself aborts with `RuntimeError: Aborted()`
 * and a wasm stack), random bytes over a catalog that PostgreSQL reads only later (it used to start and
 * report healthy), bytes changed inside one catalog page, and a catalog PostgreSQL reads as it opens.
 * The embedded database is the point, so this file runs on PGlite in both passes of the suite.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startTestService, type ReusableData } from '../helpers/service.ts';
import { runPixd } from '../helpers/cli.ts';
import { DamagedDataDir } from '../../src/platform/db/embedded-check.ts';

const EMBEDDED = { DATABASE_URL: '' };

describe('faults: a damaged embedded database', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-damaged-'));
  let healthy: ReusableData | undefined;
  /** Where a catalog's main file lives inside pgdata (base/<db>/<filenode>), and its size. */
  const catalogs: Record<string, { file: string; bytes: number }> = {};

  before(async () => {
    const svc = await startTestService(EMBEDDED);
    for (const catalog of ['pg_depend', 'pg_class']) {
      const { rows } = await svc.service.ctx.db.query<{ file: string; bytes: number }>(
        'select pg_relation_filepath($1::regclass) as file, pg_relation_size($1::regclass)::int as bytes',
        [catalog],
      );
      catalogs[catalog] = rows[0];
    }
    await svc.close({ keepData: true });
    // Kept until the end: the copies' credentials.json name its certificates.
    healthy = svc.data;
  });
  after(async () => {
    await healthy?.discard();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** A copy of the healthy data directory, damaged by `damage(pgdata)`. */
  function damagedCopy(name: string, damage: (pgdata: string) => void): ReusableData {
    const dataDir = path.join(scratch, name);
    fs.cpSync(healthy!.dataDir, dataDir, { recursive: true });
    damage(path.join(dataDir, 'pgdata'));
    return { dataDir, discard: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }

  const recovery = (dataDir: string) =>
    new RegExp(
      `restore the data directory from a backup, or move ${literal(path.join(dataDir, 'pgdata'))} aside and start over .*--reinitialize`,
    );

  /** What `pixd start` says on a damaged copy: one line, the problem and the fix, no wasm stack. */
  async function pixdStart(name: string, damage: (pgdata: string) => void): Promise<string> {
    const { dataDir } = damagedCopy(name, damage);
    const run = await runPixd(
      ['start', '--data-dir', dataDir, '--port', String(await freePort()), '--pages-port', '0'],
      { ...EMBEDDED, LOG_LEVEL: 'silent' },
    );
    assert.equal(run.status, 1, `pixd start must refuse: ${run.stdout}${run.stderr}`);
    assert.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr}`);
    assert.doesNotMatch(run.stderr, /RuntimeError|wasm/);
    assert.match(run.stderr, recovery(dataDir));
    return run.stderr;
  }

  /** The same start in this process: refused with a `DamagedDataDir` whose message names the problem. */
  async function refusedStart(name: string, damage: (pgdata: string) => void, problem: RegExp): Promise<void> {
    const data = damagedCopy(name, damage);
    await assert.rejects(startTestService(EMBEDDED, { reuse: data }), (error) => {
      assert.ok(error instanceof DamagedDataDir, String(error));
      assert.match(error.message, problem);
      assert.match(error.message, recovery(data.dataDir));
      return true;
    });
  }

  const overwrite = (file: string, bytes: number) => fs.writeFileSync(file, crypto.randomBytes(bytes));
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it('names a missing global/pg_control', async () => {
    const line = await pixdStart('no-control', (pgdata) => fs.rmSync(path.join(pgdata, 'global/pg_control')));
    assert.match(line, /^pixd: the embedded database in .* is damaged \(global\/pg_control missing\)/);
  });

  it('finds random bytes over a catalog PostgreSQL does not read as it opens', async () => {
    const { file, bytes } = catalogs.pg_depend;
    const line = await pixdStart('bad-catalog', (pgdata) => overwrite(path.join(pgdata, file), bytes));
    assert.match(
      line,
      new RegExp(`is damaged \\(${literal(file)} \\(pg_depend\\) block 0 (has a damaged header|fails its checksum)`),
    );
  });

  it('names a garbled global/pg_control', () =>
    refusedStart(
      'bad-control',
      (pgdata) => overwrite(path.join(pgdata, 'global/pg_control'), 8192),
      /is damaged \(global\/pg_control fails its CRC\)/,
    ));

  it('finds a few bytes changed inside one catalog page by its checksum', () => {
    const { file, bytes } = catalogs.pg_depend;
    const lastBlock = bytes / 8192 - 1;
    return refusedStart(
      'changed-bytes',
      (pgdata) => {
        const fd = fs.openSync(path.join(pgdata, file), 'r+');
        // The middle of the last page, not its header: only the checksum can tell.
        fs.writeSync(fd, Buffer.from('pixd'), 0, 4, lastBlock * 8192 + 4096);
        fs.closeSync(fd);
      },
      new RegExp(`is damaged \\(${literal(file)} \\(pg_depend\\) block ${lastBlock} fails its checksum\\)`),
    );
  });

  it("gives PostgreSQL's reason when the cluster does not open", () => {
    const { file, bytes } = catalogs.pg_class;
    return refusedStart(
      'bad-pg-class',
      (pgdata) => overwrite(path.join(pgdata, file), bytes),
      new RegExp(`does not open \\(PostgreSQL: invalid page in block 0 of relation "${literal(file)}"\\)`),
    );
  });

  it('starts on the undamaged copy and answers', async () => {
    const svc = await startTestService(EMBEDDED, { reuse: damagedCopy('undamaged', () => undefined) });
    try {
      assert.equal((await svc.anonymous.request('GET', '/health')).body.status, 'ok');
    } finally {
      await svc.close();
    }
  });
});
