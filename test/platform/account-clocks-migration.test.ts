/**
 * Migration 014 on a sandbox whose one service-wide clock had been moved: every existing account gets that
 * offset as its own clock, pending jobs come back to wall time (the outbox's time now), finished jobs and
 * later accounts are untouched, and the service-wide offset is gone. Nothing moves for anyone on upgrade.
 * Runs the real migration files on an embedded database.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PGlite } from '@electric-sql/pglite';
import { listMigrations } from '../../src/platform/db/migrate.ts';

const MIGRATION = 14;

describe('migration 014: per-account sandbox clocks', () => {
  it("turns the service-wide offset into each existing account's own and puts pending jobs on wall time", async () => {
    const db = new PGlite();
    try {
      const migrations = listMigrations();
      assert.ok(migrations.some((m) => m.version === MIGRATION && m.name === 'sandbox_account_clocks'));
      for (const m of migrations.filter((m) => m.version < MIGRATION)) await db.exec(m.sql);
      const offsetMs = 3 * 86_400_000;
      const at = new Date('2026-11-24T12:00:00Z');
      await db.exec(`
        insert into accounts (nome, documento, conta, payee_code, cidade, created_at) values
          ('A', '11144477735', '1001', 'payee-a', 'Recife', now()),
          ('B', '11144477735', '1002', 'payee-b', 'Recife', now());
        insert into service_state (name, value) values ('sandbox.clock_offset_ms', '{"offsetMs": ${offsetMs}}');`);
      await db.query(
        `insert into outbox (topic, payload, available_at, created_at, done_at) values
           ('t', '{}', $1, $1, null), ('t', '{}', $1, $1, $1)`,
        [at],
      );
      for (const m of migrations.filter((m) => m.version >= MIGRATION)) await db.exec(m.sql);

      const clocks = await db.query<{ offset_ms: number }>('select offset_ms from sandbox_clocks order by account_id');
      assert.deepEqual(
        clocks.rows.map((r) => Number(r.offset_ms)),
        [offsetMs, offsetMs],
        'each existing account keeps the time it had',
      );
      const jobs = await db.query<{ available_at: Date; done_at: Date | null }>(
        'select available_at, done_at from outbox order by id',
      );
      assert.equal(jobs.rows[0].available_at.getTime(), at.getTime() - offsetMs, 'the pending job is on wall time');
      assert.equal(jobs.rows[1].available_at.getTime(), at.getTime(), 'a finished job is left alone');
      const state = await db.query("select 1 from service_state where name = 'sandbox.clock_offset_ms'");
      assert.equal(state.rows.length, 0, 'no service-wide offset remains');
    } finally {
      await db.close();
    }
  });

  it('changes nothing on a service whose clock never moved', async () => {
    const db = new PGlite();
    try {
      for (const m of listMigrations()) await db.exec(m.sql);
      assert.equal((await db.query('select 1 from sandbox_clocks')).rows.length, 0);
    } finally {
      await db.close();
    }
  });
});
