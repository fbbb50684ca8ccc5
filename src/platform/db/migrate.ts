import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

/** Taken by every node that starts: two nodes starting together apply each migration once. */
export const MIGRATION_LOCK_ID = 0x70697864; // "pixd"

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(): Migration[] {
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: fs.readFileSync(MIGRATIONS_DIR + file, 'utf8'),
    }));
}

/** Applies pending migrations, each in its own transaction, under the advisory lock. Returns those applied. */
export async function migrate(db: Database): Promise<Migration[]> {
  return db.withAdvisoryLock(MIGRATION_LOCK_ID, async (sql) => {
    await sql.query(`create table if not exists schema_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const { rows } = await sql.query<{ version: number }>('select version from schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const pending = listMigrations().filter((m) => !applied.has(m.version));
    for (const migration of pending) {
      await sql.query('begin');
      try {
        await sql.exec(migration.sql);
        await sql.query('insert into schema_migrations (version, name) values ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        await sql.query('commit');
      } catch (error) {
        await sql.query('rollback');
        throw new Error(`migration ${migration.version}_${migration.name} failed: ${(error as Error).message}`);
      }
    }
    return pending;
  });
}
