/**
 * Which service a data directory and a database belong to. A data directory whose embedded database went
 * missing (or a DATABASE_URL pointing at an empty database) used to start a brand-new service silently: new
 * CA, new demo account, every old credential dead, and credentials.json still naming the old ones. Now the
 * service has an identity, kept in the database and in `<data dir>/identity.json`, and start-up refuses
 * what does not match; `pixd start --reinitialize` is the explicit way to start over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Database, Sql } from './db/database.ts';
import { MIGRATION_LOCK_ID } from './db/migrate.ts';
import { readState, writeState } from './state.ts';
import { IDENTITY_FILE, SERVICE_FILES, readJsonFile, serviceTraces, writeJsonAtomic } from './state-files.ts';

export class IdentityMismatch extends Error {}

interface IdentityFile {
  serviceId: string;
  createdAt: string;
}

const STATE = 'service.identity';

export async function ensureServiceIdentity(
  db: Database,
  dataDir: string,
  options: { reinitialize?: boolean } = {},
): Promise<string> {
  const file = path.join(dataDir, IDENTITY_FILE);
  if (options.reinitialize) forgetDataDirService(dataDir);
  const onDisk = readJsonFile<IdentityFile>(file);
  // Under the start-up lock: nodes starting together on an empty database agree on one identity.
  const inDatabase = await db.withAdvisoryLock(MIGRATION_LOCK_ID, (sql) => databaseIdentity(sql, dataDir, onDisk));
  if (onDisk && onDisk.serviceId !== inDatabase)
    throw new IdentityMismatch(
      `the data directory ${dataDir} belongs to service ${onDisk.serviceId} but the database to service ${inDatabase}: ` +
        `point DATABASE_URL/PIXD_DATA_DIR at matching ones, or start over with pixd start --reinitialize`,
    );
  // A new node's data directory for an existing database (several nodes on PostgreSQL) takes its identity.
  if (!onDisk) writeJsonAtomic(file, { serviceId: inDatabase, createdAt: new Date().toISOString() });
  return inDatabase;
}

/** The database's identity, created (adopting the data directory's, if any) when it has none and may get one. */
async function databaseIdentity(sql: Sql, dataDir: string, onDisk: IdentityFile | undefined): Promise<string> {
  let inDatabase = (await readState<IdentityFile>(sql, STATE))?.serviceId;
  if (!inDatabase) {
    const traces = serviceTraces(dataDir);
    const hasData = (await sql.query<{ any: boolean }>('select exists (select 1 from accounts) as any')).rows[0].any;
    // A database with accounts but no identity predates the marker: it is adopted, not refused.
    if (!hasData && traces)
      throw new IdentityMismatch(
        `the data directory ${dataDir} belongs to an existing service (${traces}), ` +
          `but its database is empty or missing: point DATABASE_URL/PIXD_DATA_DIR at that service's database, ` +
          `or start over with pixd start --reinitialize (its credentials stop working)`,
      );
    inDatabase = onDisk?.serviceId ?? randomUUID();
    await writeState(sql, STATE, { serviceId: inDatabase, createdAt: new Date().toISOString() });
  }
  return inDatabase;
}

/** --reinitialize: the data directory forgets its service (the database is left as it is). */
function forgetDataDirService(dataDir: string): void {
  for (const name of [IDENTITY_FILE, ...SERVICE_FILES])
    fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
}
