/**
 * `npm install` runs this (postinstall): an empty embedded cluster with every migration applied, for first
 * starts to copy (src/platform/db/embedded-cluster.ts). Templates of other trees are removed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/platform/db/database.ts';
import { migrate } from '../src/platform/db/run-migrations.ts';
import { CACHE_DIR, clusterTemplateDir } from '../src/platform/db/embedded-cluster.ts';

async function build(): Promise<string> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-cluster-'));
  try {
    // openDatabase runs initdb (no template of this name exists yet) and limits the cluster's memory.
    const db = await openDatabase({ dataDir: scratch });
    await migrate(db);
    await db.close();
    const target = clusterTemplateDir();
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    for (const old of fs.readdirSync(CACHE_DIR))
      if (old.startsWith('pglite-')) fs.rmSync(path.join(CACHE_DIR, old), { recursive: true });
    // Complete or absent: a first start never copies half a cluster.
    const partial = `${target}.partial`;
    fs.cpSync(path.join(scratch, 'pgdata'), partial, { recursive: true });
    fs.renameSync(partial, target);
    return target;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

const started = performance.now();
try {
  const file = await build();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`pixd: embedded database template ready in ${seconds} s (${file})\n`);
} catch (error) {
  // Never fail an install for it: a first start without the template runs initdb and the migrations.
  process.stderr.write(
    `pixd: no embedded database template (${(error as Error).message}); first starts will be slower\n`,
  );
}
