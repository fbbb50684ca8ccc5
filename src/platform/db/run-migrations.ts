import type { Database } from './database.ts';
import { MIGRATION_LOCK_ID, listMigrations, type Migration } from './migrate.ts';

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
