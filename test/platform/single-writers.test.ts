// suite: database-independent
/**
 * Single writers (issue 28 item 3, docs/architecture.md): the ledger module owns the SQL that writes journal
 * entries, journal lines and ledger accounts, and the outbox module the SQL that writes outbox rows. Other
 * modules write those tables only through what the owners export (`post`, `transferCtes`,
 * `PIX_RECEIVED_POSTING`, `enqueue`, `outboxInsertSql`, `shiftAccountJobs`, `ACCOUNT_JOBS`), so a change to
 * either table changes one module. Checked on the sources of src/ and bench/; migrations (SQL files) change
 * a table's data once, with its schema, and tests may corrupt a table on purpose.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sourceFiles } from '../helpers/sources.ts';

const OWNERS: Record<string, string> = {
  journal_entries: 'src/platform/ledger/',
  journal_lines: 'src/platform/ledger/',
  ledger_accounts: 'src/platform/ledger/',
  outbox: 'src/platform/outbox/',
};

/** Files that write an owned table themselves, and why. Empty is the goal; an entry needs a reason. */
const ALLOWED: Record<string, string> = {
  'bench/scenarios/reconciliation-report.ts':
    'seeds a journal of a million lines in bulk for the report bench, faster than posting entry by entry',
};

const TABLES = Object.keys(OWNERS).join('|');
/** A statement that writes a table, or a table named as the target of a generated statement (`{ table: 'x' }`). */
const WRITES = new RegExp(
  `\\b(?:insert\\s+into|update|delete\\s+from|truncate(?:\\s+table)?|merge\\s+into)\\s+"?(${TABLES})\\b|\\btable:\\s*'(${TABLES})'`,
  'gi',
);

function writers(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const file of [...sourceFiles('src'), ...sourceFiles('bench')]) {
    const relative = path.relative(process.cwd(), file);
    for (const match of fs.readFileSync(file, 'utf8').matchAll(WRITES)) {
      const table = (match[1] ?? match[2]).toLowerCase();
      if (!found.has(table)) found.set(table, new Set());
      found.get(table)!.add(relative);
    }
  }
  return found;
}

describe('single writers of the ledger and outbox tables', () => {
  const found = writers();

  it('finds the owners writing their tables (the check sees what it looks for)', () => {
    for (const [table, owner] of Object.entries(OWNERS))
      assert.ok(
        [...(found.get(table) ?? [])].some((file) => file.startsWith(owner)),
        `${owner} writes ${table}`,
      );
  });

  it('no other file writes them', () => {
    const strangers = [...found].flatMap(([table, files]) =>
      [...files].filter((file) => !file.startsWith(OWNERS[table]) && !(file in ALLOWED)).map((f) => `${f}: ${table}`),
    );
    assert.deepEqual(strangers, [], 'write through the owning module (docs/architecture.md, "How money moves")');
  });

  it('every allowed exception still writes one (a stale entry is removed)', () => {
    const writing = new Set([...found.values()].flatMap((files) => [...files]));
    assert.deepEqual(
      Object.keys(ALLOWED).filter((file) => !writing.has(file)),
      [],
    );
  });
});
