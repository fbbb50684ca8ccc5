/**
 * The template databases on a PostgreSQL server (src/testing/template.ts): made, copied and dropped through an
 * administrator's connection, one short-lived client per statement (the template's own connections must all
 * be gone before a copy can be made of it). And, on the embedded database, the cluster's databases that a
 * template's copies can do without.
 */
import pg from 'pg';
import type { Database } from '../platform/db/database.ts';

export async function databaseExists(adminUrl: string | undefined, name: string | undefined): Promise<boolean> {
  if (!adminUrl || !name) return true;
  const rows = await adminQuery(adminUrl, 'select 1 from pg_database where datname = $1', [name]);
  return rows.length === 1;
}

/** A backend of the template's last connection may still be exiting: the server then says it is in use. */
export async function createFromTemplate(adminUrl: string, name: string, template: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(adminUrl, `create database ${name} template ${template}`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export function withDatabase(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function adminQuery(adminUrl: string, text: string, params?: unknown[]): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

export const dropDatabase = (adminUrl: string, name: string) =>
  adminQuery(adminUrl, `drop database if exists ${name} with (force)`);

export const createDatabase = (adminUrl: string, name: string) => adminQuery(adminUrl, `create database ${name}`);

export async function templateDatabases(adminUrl: string): Promise<{ datname: string }[]> {
  return (await adminQuery(adminUrl, `select datname from pg_database where datname like 'pixd\\_tmpl\\_%'`)) as {
    datname: string;
  }[];
}

/** The embedded cluster's databases but the node's own (template0, template1); none on PostgreSQL. */
export async function unusedDatabases(db: Database): Promise<number[]> {
  if (db.kind !== 'pglite') return [];
  const { rows } = await db.query<{ oid: number }>(
    'select oid::int as oid from pg_database where datname <> current_database()',
  );
  return rows.map((row) => row.oid);
}
