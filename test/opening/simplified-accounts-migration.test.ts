/**
 * Migration 043 on a database that already holds duplicate simplified accounts (opened before the rule): it must
 * apply, keep every account, give each (integrator, document) its earliest account, and from then on refuse a
 * second one at the database. A bare in-memory PGlite (not `openDatabase`, whose embedded cluster comes from the
 * install template, already migrated), or a fresh database on the server named by DATABASE_URL.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/platform/db/database.ts';
import { isUniqueViolation } from '../../src/platform/db/errors.ts';
import { listMigrations } from '../../src/platform/db/migrate.ts';
import { freshPostgres } from '../helpers/service.ts';

const CPF = '52998224725';
const CNPJ = '11222333000181';

describe('migration 043: one simplified account per holder and integrator', () => {
  let db: {
    query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
    exec(sql: string): Promise<unknown>;
    close(): Promise<void>;
  };
  let dir: string | undefined;
  let postgres: Awaited<ReturnType<typeof freshPostgres>> | undefined;
  const migrations = listMigrations();
  const holders = migrations.find((m) => m.name === 'simplified_account_holders')!;

  before(async () => {
    postgres = process.env.DATABASE_URL ? await freshPostgres(process.env.DATABASE_URL) : undefined;
    dir = postgres && fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-migration-043-'));
    db =
      postgres && dir
        ? await openDatabase({ databaseUrl: postgres.url, dataDir: dir, newService: true })
        : await PGlite.create();
    for (const m of migrations.filter((m) => m.version < holders.version)) await db.exec(m.sql);
  });
  after(async () => {
    await db?.close();
    await postgres?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  let serial = 0;
  async function account(documento: string): Promise<number> {
    const n = String(++serial).padStart(8, '0');
    const { rows } = await db.query<{ id: number }>(
      `insert into accounts (nome, documento, conta, payee_code, cidade, created_at)
       values ('Titular', $1, $2, $3, 'Sao Paulo', now()) returning id::float8 as id`,
      [documento, n, `payee${n}`],
    );
    return rows[0].id;
  }
  async function simplified(id: string, openerAccountId: number, documento: string, createdAt: string) {
    const accountId = await account(documento);
    await db.query(
      `insert into applications (client_id, account_id, secret_hash, scopes, certificate_sha256, created_at)
       values ($1, $2, 'x', '{}', $1, now())`,
      [`client_${id}`, accountId],
    );
    await db.query(
      `insert into simplified_accounts (id, opener_account_id, account_id, client_id, created_at)
       values ($1, $2, $3, $4, $5)`,
      [id, openerAccountId, accountId, `client_${id}`, createdAt],
    );
  }

  it('applies over duplicates, the earliest per integrator and document holding it, then refuses another', async () => {
    const [integrator, other] = [await account(CNPJ), await account(CNPJ)];
    await simplified('cpf_second', integrator, CPF, '2026-02-01T00:00:00Z');
    await simplified('cpf_first', integrator, CPF, '2026-01-01T00:00:00Z');
    await simplified('cnpj_first', integrator, CNPJ, '2026-01-02T00:00:00Z');
    await simplified('cnpj_second', integrator, CNPJ, '2026-01-03T00:00:00Z');
    await simplified('other_integrator', other, CPF, '2026-03-01T00:00:00Z');

    await db.exec(holders.sql);

    const { rows } = await db.query<{ id: string; cpf: string | null; cnpj: string | null }>(
      'select id, cpf, cnpj from simplified_accounts order by id',
    );
    assert.deepEqual(rows, [
      { id: 'cnpj_first', cpf: null, cnpj: CNPJ },
      { id: 'cnpj_second', cpf: null, cnpj: null },
      { id: 'cpf_first', cpf: CPF, cnpj: null },
      { id: 'cpf_second', cpf: null, cnpj: null },
      { id: 'other_integrator', cpf: CPF, cnpj: null },
    ]);
    const accountId = await account(CPF);
    await assert.rejects(
      db.query(
        `insert into simplified_accounts (id, opener_account_id, account_id, client_id, cpf, created_at)
         values ('again', $1, $2, 'client_cpf_first', $3, now())`,
        [integrator, accountId, CPF],
      ),
      (error: unknown) =>
        isUniqueViolation(error) && (error as { constraint?: string }).constraint === 'simplified_accounts_opener_cpf',
    );
  });
});
