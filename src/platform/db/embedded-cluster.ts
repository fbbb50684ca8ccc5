/**
 * The embedded database (PGlite) a data directory holds: how a new one is made fast, and how much
 * memory it may keep.
 *
 * A new embedded database starts from a copy of a cluster that has every migration of this tree applied,
 * instead of running initdb and the migrations. Those cost seconds and most of a first start's peak
 * memory (docs/performance.md, "Start-up"), and they give the same bytes for every data directory of one
 * PGlite release and one set of migrations. So `npm install` (the `postinstall` script,
 * scripts/build-cluster-template.ts) builds it once, named by both, and every first start and every test
 * data directory loads it. A tree whose migrations changed since (or an install with --ignore-scripts)
 * finds no template of its name, and its first start runs initdb and the migrations as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { listMigrations } from './migrate.ts';

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The release's own number: a cluster from another release may not load. */
function pgliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  const manifest = path.join(path.dirname(entry), '..', 'package.json');
  return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/**
 * PGlite's cluster comes with PostgreSQL's 128 MB of shared buffers, all of it in this process (most of
 * an idle pixd's memory). The embedded database is a sandbox's or a small node's: 16 MB holds its hot
 * pages, and the rest is read through the operating system's page cache.
 */
export const EMBEDDED_SHARED_BUFFERS = '16MB';

/** Takes effect from the next start of the cluster; the template (below) has it already. */
export async function limitEmbeddedMemory(db: Pick<PGlite, 'query' | 'exec'>): Promise<void> {
  const { rows } = await db.query<{ buffers: string }>(`select current_setting('shared_buffers') as buffers`);
  if (rows[0].buffers !== EMBEDDED_SHARED_BUFFERS)
    await db.exec(`alter system set shared_buffers = '${EMBEDDED_SHARED_BUFFERS}'`);
}

/**
 * Where node tools keep caches (node_modules/.cache/<tool>): the cluster's directory, named by the PGlite
 * release and the migrations. Copied as files: PGlite's own `loadDataDir` (a tarball through its virtual file
 * system) took twice as long and a hundred MiB more at its peak.
 */
export function clusterTemplateDir(): string {
  const migrations = createHash('sha256');
  for (const m of listMigrations()) migrations.update(`${m.version}\0${m.name}\0${m.sql}\0`);
  return path.join(CACHE_DIR, `pglite-${pgliteVersion()}-${migrations.digest('hex').slice(0, 16)}`);
}

export const CACHE_DIR = path.join(PACKAGE_ROOT, 'node_modules', '.cache', 'pixd');

/** Copies the migrated cluster into a new data directory's cluster directory; false when none was built for this tree. */
export function copyClusterTemplate(clusterDir: string): boolean {
  const template = clusterTemplateDir();
  if (!fs.existsSync(path.join(template, 'PG_VERSION'))) return false;
  // Copied beside it, then renamed: a start killed while copying leaves no half cluster that looks like one.
  const partial = `${clusterDir}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.cpSync(template, partial, { recursive: true });
  if (fs.existsSync(clusterDir)) fs.rmdirSync(clusterDir); // empty: only then is a cluster made here
  fs.renameSync(partial, clusterDir);
  return true;
}
