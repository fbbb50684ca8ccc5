/**
 * A started-once data directory (and, on PostgreSQL, database) that test services are copied from: pixd's own
 * suite (test/helpers/service.ts) and integrators' (`startPixd`, src/testing/index.ts) alike.
 *
 * A first start costs seconds: PGlite creates its cluster, every migration runs, the CA, the server, webhook
 * and payload-signing certificates and the demo account's client certificate are issued. It is the same
 * work for every test file, so it is done once: a real first start of `startService` on PORT 0 (the
 * template), closed, kept under os.tmpdir() and, on PostgreSQL, as a database `pixd_tmpl_<key>` on the
 * server. The key hashes every file under src/ (migrations, bootstrap, identity, the demo account) and the
 * dependencies (package-lock.json), so any change to them builds a new template; one older than a week is rebuilt too (its
 * certificates' dates). Concurrent test processes build it once, under a lock directory.
 *
 * A copy is the data directory and the database of one service, copied together: identity.json and the
 * database's identity match, the CA files match the CA in the database. What a first start on the copy's
 * own port would have written differently is rewritten: credentials.json names the copy's directory and
 * its base URL. Copies share the template's service id, CA and demo account ids; what needs a genuinely
 * new service gets one: `--reinitialize` (test/faults/identity.test.ts), the real command's first start
 * (test/platform/process.test.ts), start-up settings other than the template's (test/helpers/service.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config.ts';
import { startService } from '../runtime.ts';
import { processAlive } from '../platform/processes.ts';
import type { CredentialsFile } from '../accounts/credentials.ts';
import {
  createDatabase,
  createFromTemplate,
  databaseExists,
  dropDatabase,
  templateDatabases,
  unusedDatabases,
  withDatabase,
} from './template-store.ts';

const SRC = fileURLToPath(new URL('../', import.meta.url));
/** The dependencies' versions: the lock file in a checkout, package.json where pixd is installed as a package. */
const DEPENDENCIES = ['../../package-lock.json', '../../package.json'].map((p) =>
  fileURLToPath(new URL(p, import.meta.url)),
);
const MAX_AGE_MS = 7 * 86_400_000;
const LOCK_WAIT_MS = 600_000;
/** Templates of other trees (every edit under src/ is a new key) kept besides the newest: a machine's
 * worktrees each keep theirs, and the rest are removed when a template is built. */
const OTHER_TEMPLATES_KEPT = 8;
/** A template younger than this is never removed for others: its tree may be copying it right now. */
const TEMPLATE_REMOVABLE_AFTER_MS = 3_600_000;

export interface SeededData {
  dataDir: string;
  /** The copy's database on the PostgreSQL server; undefined on PGlite (inside dataDir). */
  databaseUrl?: string;
  /** Drops the database and removes the directory. */
  discard(): Promise<void>;
}

/**
 * A copy of the template for a service that will serve at `publicUrl`, on PGlite or, given `adminUrl`, on a
 * new database of that PostgreSQL server. `dataDir` (empty or missing) receives the copy; a new temporary
 * directory otherwise.
 */
export async function seededData(
  publicUrl: string,
  options: { adminUrl?: string; dataDir?: string } = {},
): Promise<SeededData> {
  const template = await ensureTemplate(options.adminUrl);
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-test-'));
  fs.cpSync(template.dataDir, dataDir, { recursive: true, mode: fs.constants.COPYFILE_FICLONE });
  rewriteCredentials(dataDir, template.dataDir, publicUrl);
  let databaseUrl: string | undefined;
  let name: string | undefined;
  if (options.adminUrl && template.database) {
    name = `pixd_test_${process.pid}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    await createFromTemplate(options.adminUrl, name, template.database);
    databaseUrl = withDatabase(options.adminUrl, name);
  }
  return {
    dataDir,
    databaseUrl,
    async discard() {
      if (name && options.adminUrl) await dropDatabase(options.adminUrl, name);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Template {
  dataDir: string;
  /** The template database on the PostgreSQL server. */
  database?: string;
}

const built = new Map<string, Promise<Template>>();

/** Template keys by server ('' for PGlite), once per process: hashing every source file cost each start tens of milliseconds. */
const keys = new Map<string, string>();

function ensureTemplate(adminUrl: string | undefined): Promise<Template> {
  let key = keys.get(adminUrl ?? '');
  if (!key) keys.set(adminUrl ?? '', (key = templateKey(adminUrl)));
  let template = built.get(key);
  if (!template) {
    template = findOrBuild(key, adminUrl);
    built.set(key, template);
    template.catch(() => built.delete(key));
  }
  return template;
}

async function findOrBuild(key: string, adminUrl: string | undefined): Promise<Template> {
  const root = path.join(os.tmpdir(), `pixd-template-${key}`);
  const template: Template = { dataDir: path.join(root, 'data'), database: adminUrl ? `pixd_tmpl_${key}` : undefined };
  const ready = path.join(root, 'ready');
  if (isFresh(ready) && (await databaseExists(adminUrl, template.database))) return template;
  fs.mkdirSync(path.dirname(root), { recursive: true });
  const release = await lock(`${root}.lock`);
  try {
    if (isFresh(ready) && (await databaseExists(adminUrl, template.database))) return template;
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(template.dataDir, { recursive: true });
    if (adminUrl && template.database) {
      await dropDatabase(adminUrl, template.database);
      await createDatabase(adminUrl, template.database);
    }
    const config = loadConfig({
      PIXD_DATA_DIR: template.dataDir,
      PORT: '0',
      PIXD_ENV: 'sandbox',
      LOG_LEVEL: 'silent',
      ...(adminUrl && template.database && { DATABASE_URL: withDatabase(adminUrl, template.database) }),
    });
    // The first start itself, as `pixd start` does it; closing it ends every connection to the database.
    const service = await startService(config, { logger: false });
    const unused = await unusedDatabases(service.ctx.db);
    await service.close();
    // A third of an embedded copy is PostgreSQL's template databases, which a node never opens (it creates no
    // database): left out of the template, each copy and each removal at stop() is that much smaller.
    for (const oid of unused)
      fs.rmSync(path.join(template.dataDir, 'pgdata', 'base', String(oid)), { recursive: true });
    fs.writeFileSync(ready, new Date().toISOString());
    await removeOldTemplates(key, adminUrl);
    return template;
  } finally {
    release();
  }
}

/** Each under its own lock, so none is removed while its tree builds it. */
async function removeOldTemplates(keep: string, adminUrl: string | undefined): Promise<void> {
  const prefix = 'pixd-template-';
  const others = fs
    .readdirSync(os.tmpdir())
    .filter((name) => name.startsWith(prefix) && !name.endsWith('.lock') && name !== `${prefix}${keep}`)
    .map((name) => ({ key: name.slice(prefix.length), root: path.join(os.tmpdir(), name), builtMs: builtAt(name) }))
    .sort((a, b) => b.builtMs - a.builtMs);
  const removable = others.filter(
    (t, rank) =>
      Date.now() - t.builtMs > MAX_AGE_MS ||
      (rank >= OTHER_TEMPLATES_KEPT && Date.now() - t.builtMs > TEMPLATE_REMOVABLE_AFTER_MS),
  );
  for (const old of removable) {
    const release = await lock(`${old.root}.lock`);
    try {
      fs.rmSync(old.root, { recursive: true, force: true });
    } finally {
      release();
    }
  }
  if (!adminUrl) return;
  // Also those whose directory a run on PGlite removed (it knows no server): a template's directory is made
  // before its database, so one being built is never among them.
  const databases = await templateDatabases(adminUrl);
  for (const { datname } of databases)
    if (!fs.existsSync(path.join(os.tmpdir(), `${prefix}${datname.slice('pixd_tmpl_'.length)}`)))
      await dropDatabase(adminUrl, datname);
}

/** When the template under tmpdir's `name` was built; for one still being built, when that began. */
function builtAt(name: string): number {
  const root = path.join(os.tmpdir(), name);
  try {
    return fs.statSync(path.join(root, 'ready')).mtimeMs;
  } catch {
    try {
      return fs.statSync(root).mtimeMs;
    } catch {
      return Date.now(); // removed meanwhile: nothing to do
    }
  }
}

function isFresh(marker: string): boolean {
  try {
    return Date.now() - fs.statSync(marker).mtimeMs < MAX_AGE_MS;
  } catch {
    return false;
  }
}

/** Every file under src/, package-lock.json (PGlite's version), and the PostgreSQL server when there is one. */
function templateKey(adminUrl: string | undefined): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else hash.update(path.relative(SRC, file)).update('\0').update(fs.readFileSync(file)).update('\0');
    }
  };
  walk(SRC);
  // The installed PGlite (its data directory format) and the rest of the dependencies.
  hash.update(fs.readFileSync(DEPENDENCIES.find((file) => fs.existsSync(file)) ?? DEPENDENCIES[1]));
  if (adminUrl) {
    const url = new URL(adminUrl);
    hash.update(`${url.hostname}:${url.port}`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** credentials.json as a first start in `dataDir` serving at `publicUrl` writes it. */
function rewriteCredentials(dataDir: string, templateDir: string, publicUrl: string): void {
  const file = path.join(dataDir, 'credentials.json');
  const credentials = JSON.parse(fs.readFileSync(file, 'utf8')) as CredentialsFile;
  const moved = (p: string) => path.join(dataDir, path.relative(templateDir, p));
  const rewritten: CredentialsFile = {
    ...credentials,
    baseUrl: publicUrl,
    certificate: {
      p12: moved(credentials.certificate.p12),
      pem: moved(credentials.certificate.pem),
      key: moved(credentials.certificate.key),
    },
    caCertificate: moved(credentials.caCertificate),
    webhookCertificateChain: moved(credentials.webhookCertificateChain),
  };
  fs.writeFileSync(file, JSON.stringify(rewritten, null, 2) + '\n', { mode: 0o600 });
}

/** A lock directory holding its owner's pid; one whose owner died is taken over. */
async function lock(dir: string): Promise<() => void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'pid'), String(process.pid));
      return () => fs.rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let owner: number | undefined;
    try {
      owner = Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8'));
    } catch {
      // Between its mkdir and its pid file: alive.
    }
    if (owner && !processAlive(owner)) {
      fs.rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`the test template lock ${dir} is held by pid ${owner}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
