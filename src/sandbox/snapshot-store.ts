/**
 * The store of `pixd snapshot save|restore|list|delete <name>` (sandbox): the whole sandbox's data kept inside its own
 * database and put back, by the database's own means — each snapshot a schema `pixd_snapshot_<name>` holding
 * a copy of every table made in one repeatable-read transaction (one consistent instant, while the node
 * serves), and a restore one transaction that locks every table, empties them and copies the snapshot back
 * (requests in flight wait for it and then see the restored data). The same SQL on the embedded database and
 * on PostgreSQL, with the node running (through the operator API) or stopped (the CLI opens the database).
 *
 * Not in a snapshot: the schema's own bookkeeping and the service's identity and keys (`service_state`): a
 * snapshot is restored into the service it was taken from, and never across migrations (its version is kept
 * and checked).
 */
import type { Database, Sql } from '../platform/db/database.ts';

const SCHEMA_PREFIX = 'pixd_snapshot_';
/** Lower-case letters, digits and underscores: the name becomes part of a schema's identifier. */
export const SNAPSHOT_NAME = /^[a-z0-9_]{1,40}$/;
const NOT_SNAPSHOTTED = new Set(['schema_migrations', 'service_state']);

export class SnapshotError extends Error {
  constructor(
    readonly kind: 'invalid' | 'missing' | 'exists' | 'incompatible',
    message: string,
  ) {
    super(message);
  }
}

export interface SnapshotInfo {
  name: string;
  createdAt: string;
  /** The schema version it was taken at (the last migration applied). */
  schemaVersion: number;
  rows: number;
}

function schemaOf(name: string): string {
  if (!SNAPSHOT_NAME.test(name))
    throw new SnapshotError('invalid', `snapshot names are 1 to 40 of a-z, 0-9 and _ (got "${name}")`);
  return `${SCHEMA_PREFIX}${name}`;
}

/** The data tables, each parent before the tables that reference it (the order a restore inserts in). */
async function dataTables(sql: Sql): Promise<string[]> {
  const { rows: tables } = await sql.query<{ name: string }>(
    `select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  const { rows: references } = await sql.query<{ child: string; parent: string }>(
    `select c.relname as child, p.relname as parent
       from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
       join pg_namespace n on n.oid = c.relnamespace
      where k.contype = 'f' and n.nspname = 'public' and c.oid <> p.oid`,
  );
  const names = tables.map((t) => t.name).filter((name) => !NOT_SNAPSHOTTED.has(name));
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (ordered.includes(table) || visiting.has(table)) return;
    visiting.add(table);
    for (const r of references) if (r.child === table && names.includes(r.parent)) visit(r.parent);
    ordered.push(table);
  };
  for (const name of names) visit(name);
  return ordered;
}

/** Each table's columns a copy can write (generated ones are computed again by the table itself), quoted. */
async function writableColumns(sql: Sql): Promise<Map<string, string>> {
  const { rows } = await sql.query<{ table_name: string; columns: string }>(
    `select table_name, string_agg(quote_ident(column_name), ', ' order by ordinal_position) as columns
       from information_schema.columns
      where table_schema = 'public' and is_generated = 'NEVER' group by table_name`,
  );
  return new Map(rows.map((r) => [r.table_name, r.columns]));
}

async function schemaVersion(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ version: number }>('select max(version)::int as version from schema_migrations');
  return rows[0].version;
}

async function exists(sql: Sql, schema: string): Promise<boolean> {
  const { rows } = await sql.query('select 1 from information_schema.schemata where schema_name = $1', [schema]);
  return rows.length > 0;
}

export async function saveSnapshot(db: Database, name: string, now: Date): Promise<SnapshotInfo> {
  const schema = schemaOf(name);
  return db.tx(async (sql) => {
    await sql.query('set transaction isolation level repeatable read');
    if (await exists(sql, schema)) throw new SnapshotError('exists', `snapshot "${name}" exists: delete it first`);
    await sql.query(`create schema ${schema}`);
    const columns = await writableColumns(sql);
    const tables = await dataTables(sql);
    // One script, one round trip: a table copy per data table.
    await sql.exec(
      tables.map((t) => `create table ${schema}."${t}" as select ${columns.get(t)} from public."${t}";`).join('\n'),
    );
    const { rows: counted } = await sql.query<{ rows: string | number }>(
      `select (${tables.map((t) => `(select count(*) from ${schema}."${t}")`).join(' + ')})::bigint as rows`,
    );
    const rows = Number(counted[0].rows);
    await sql.query(
      `create table ${schema}._sequences as
         select sequencename as name, last_value from pg_sequences where schemaname = 'public'`,
    );
    const version = await schemaVersion(sql);
    await sql.query(
      `create table ${schema}._snapshot as select $1::timestamptz as created_at, $2::int as schema_version, $3::bigint as row_count`,
      [now, version, rows],
    );
    return { name, createdAt: now.toISOString(), schemaVersion: version, rows };
  });
}

/** Callers refresh the account clocks they cache (`loadAccountClocks`): the restore changed their offsets. */
export async function restoreSnapshot(db: Database, name: string): Promise<SnapshotInfo> {
  const schema = schemaOf(name);
  return db.tx(async (sql) => {
    const snapshot = await describe(sql, name);
    const version = await schemaVersion(sql);
    if (snapshot.schemaVersion !== version)
      throw new SnapshotError(
        'incompatible',
        `snapshot "${name}" was taken at schema version ${snapshot.schemaVersion}, the database is at ${version}`,
      );
    const tables = await dataTables(sql);
    const columns = await writableColumns(sql);
    const list = tables.map((t) => `public."${t}"`).join(', ');
    // One script, one round trip. The lock first: everyone else waits until the restore commits, so no
    // request sees half of it. A sequence never used (no last value) starts again from its first value.
    await sql.exec(
      [
        `lock table ${list} in access exclusive mode;`,
        `truncate ${list};`,
        ...tables.map(
          (t) => `insert into public."${t}" (${columns.get(t)}) select ${columns.get(t)} from ${schema}."${t}";`,
        ),
        `select setval(format('public.%I', s.sequencename), coalesce(k.last_value, 1), k.last_value is not null)
           from pg_sequences s left join ${schema}._sequences k on k.name = s.sequencename
          where s.schemaname = 'public';`,
      ].join('\n'),
    );
    return snapshot;
  });
}

async function describe(sql: Sql, name: string): Promise<SnapshotInfo> {
  const schema = schemaOf(name);
  if (!(await exists(sql, schema))) throw new SnapshotError('missing', `no snapshot "${name}"`);
  const { rows } = await sql.query<{ created_at: Date; schema_version: number; row_count: string | number }>(
    `select created_at, schema_version, row_count from ${schema}._snapshot`,
  );
  const r = rows[0];
  return {
    name,
    createdAt: new Date(r.created_at).toISOString(),
    schemaVersion: r.schema_version,
    rows: Number(r.row_count),
  };
}

export async function listSnapshots(sql: Sql): Promise<SnapshotInfo[]> {
  const { rows } = await sql.query<{ schema_name: string }>(
    `select schema_name from information_schema.schemata where schema_name like '${SCHEMA_PREFIX}%' order by schema_name`,
  );
  return Promise.all(rows.map((r) => describe(sql, r.schema_name.slice(SCHEMA_PREFIX.length))));
}

export async function deleteSnapshot(sql: Sql, name: string): Promise<void> {
  const schema = schemaOf(name);
  if (!(await exists(sql, schema))) throw new SnapshotError('missing', `no snapshot "${name}"`);
  await sql.query(`drop schema ${schema} cascade`);
}
