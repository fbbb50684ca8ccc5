/**
 * Directory entries under load (issue 16, item 7): 10,000 keys registered through POST /dict/entries by 20
 * concurrent clients of one participant, on PostgreSQL. Beside them, 1,000 second attempts at keys of the set by
 * another owner, sent at the same time by other clients: whichever arrives first wins, the other must be
 * answered as a conflict. Checked afterwards: every key accepted exactly once (one 201 per key, one entry row
 * per key), every other answer a conflict of the directory's names, no 5xx. Measured: entries/s (201s over the
 * wall time of the whole run) and latency percentiles.
 * Standalone: `node --import tsx bench/scenarios/dict-entries.ts` (PostgreSQL, BENCH_PG_URL).
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { RunningService } from '../../src/runtime.ts';
import { createAccount, type IssuedAccount } from '../../src/accounts/service.ts';
import { completeCpf } from '../../src/platform/documents.ts';
import { sandboxOnFreshDatabase } from '../postgres.ts';
import { runIfMain } from '../lifecycle.ts';
import { keepAliveSender } from '../https-json.ts';
import { writeNotesSection } from '../notes-section.ts';
import { percentile } from '../stats.ts';

const SETTINGS = {
  entries: Number(process.env.BENCH_DICT_ENTRIES || 10_000),
  conflicts: Number(process.env.BENCH_DICT_CONFLICTS || 1_000),
  clients: Number(process.env.BENCH_DICT_CLIENTS || 20),
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  output: process.env.BENCH_OUTPUT || 'docs/performance.md',
};
const CONFLICT_NAMES = [
  'EntryKeyOwnedByDifferentPerson',
  'EntryKeyInCustodyOfDifferentParticipant',
  'EntryAlreadyExists',
];
const log = (line: string) => process.stderr.write(`bench dict: ${line}\n`);

/** One keep-alive client of the participant's application. */
function client(service: RunningService, issued: IssuedAccount) {
  return keepAliveSender(service, { identity: issued.certificate, maxSockets: 1 });
}

interface Attempt {
  key: string;
  owner: string;
  index: number;
}

function entryBody(a: Attempt, ispb: string) {
  return {
    entry: {
      account: {
        accountNumber: String(a.index + 1),
        accountType: 'cacc',
        branch: '0001',
        openingDate: '2020-01-15T12:00:00.000Z',
        participant: ispb,
      },
      key: a.key,
      keyType: 'phone',
      owner: { name: 'Cliente Bench', taxIdNumber: a.owner, type: 'natural_person' },
    },
    reason: 'user_requested',
    requestId: randomUUID(),
  };
}

export async function runDictBench(): Promise<void> {
  const bench = await sandboxOnFreshDatabase(SETTINGS.adminUrl, 'dict');
  const { service, database } = bench;
  const issued = await createAccount(service.ctx.db, service.ctx.pki, service.ctx.clock, { participant: true });
  const ispb = issued.account.participant_ispb!;
  const clients = Array.from({ length: SETTINGS.clients }, () => client(service, issued));
  try {
    const basic = `Basic ${Buffer.from(`${issued.clientId}:${issued.clientSecret}`).toString('base64')}`;
    const token = (await clients[0].send('POST', '/oauth/token', { grant_type: 'client_credentials' }, basic)).body
      .access_token as string;
    // Every key once, by its owner; then a second attempt at every (entries/conflicts)-th key by another owner,
    // placed right beside the first so the two race on different clients.
    const owner = (i: number) => completeCpf(String(100_000_000 + i));
    const attempts: Attempt[] = [];
    const stride = Math.max(1, Math.floor(SETTINGS.entries / Math.max(1, SETTINGS.conflicts)));
    let seconds = 0;
    for (let i = 0; i < SETTINGS.entries; i++) {
      const key = `+55119${String(i).padStart(8, '0')}`;
      attempts.push({ key, owner: owner(i), index: i });
      if (i % stride === 0 && seconds < SETTINGS.conflicts) {
        attempts.push({ key, owner: owner(SETTINGS.entries + i), index: i });
        seconds++;
      }
    }
    const statuses = new Map<string, number>();
    const acceptedPerKey = new Map<string, number>();
    const latencies: number[] = [];
    let next = 0;
    // Other work on the machine shares its cores: the report says how busy it was.
    const loadAtStart = os.loadavg()[0];
    const started = performance.now();
    await Promise.all(
      clients.map(async (c) => {
        for (let n = next++; n < attempts.length; n = next++) {
          const attempt = attempts[n];
          const sent = performance.now();
          const reply = await c.send('POST', '/dict/entries', entryBody(attempt, ispb), `Bearer ${token}`);
          latencies.push(performance.now() - sent);
          const name = reply.status === 201 ? '201' : `${reply.status} ${reply.body?.error?.title}`;
          statuses.set(name, (statuses.get(name) ?? 0) + 1);
          if (reply.status === 201) acceptedPerKey.set(attempt.key, (acceptedPerKey.get(attempt.key) ?? 0) + 1);
        }
      }),
    );
    const wallS = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const accepted = statuses.get('201') ?? 0;
    const conflicts = [...statuses].filter(([s]) => CONFLICT_NAMES.some((n) => s === `400 ${n}`));
    const others = [...statuses].filter(([s]) => s !== '201' && !conflicts.some(([c]) => c === s));
    const { rows } = await service.ctx.db.query<{ n: number; keys: number }>(
      'select count(*)::int as n, count(distinct key)::int as keys from dict_entries',
    );
    const keys = new Set(attempts.map((a) => a.key));
    const exactlyOnce =
      acceptedPerKey.size === keys.size &&
      [...acceptedPerKey.values()].every((n) => n === 1) &&
      rows[0].n === keys.size &&
      rows[0].keys === keys.size;
    const conflictCount = conflicts.reduce((sum, [, n]) => sum + n, 0);
    const ok = exactlyOnce && others.length === 0 && conflictCount === attempts.length - keys.size;
    const rate = accepted / wallS;
    const p = (q: number) => percentile(latencies, q).toFixed(1);
    log(
      `${attempts.length} requests, ${accepted} accepted, ${conflictCount} conflicts in ${wallS.toFixed(1)} s: ` +
        `${Math.round(rate)} entries/s, p50 ${p(50)} ms, p99 ${p(99)} ms; exactly once: ${exactlyOnce}` +
        (others.length ? `; other answers: ${JSON.stringify(others)}` : ''),
    );
    if (!ok) process.exitCode = 1;
    writeNotesSection(
      SETTINGS.output,
      'dict-entries',
      [
        '### Directory entries under concurrency (issue 16)',
        '',
        `Measured by \`node --import tsx bench/scenarios/dict-entries.ts\` on ${new Date().toISOString()} (${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${database.version}; pixd and the clients in one process).`,
        `One participant application, ${SETTINGS.clients} concurrent keep-alive clients, ${keys.size.toLocaleString('en')} phone keys each registered once by its owner,`,
        `and ${(attempts.length - keys.size).toLocaleString('en')} second attempts at keys of the set by another owner, sent beside the first (they race).`,
        '',
        '| requests | accepted (201) | conflicts (400) | other answers | wall s | entries/s | p50 ms | p99 ms | each key accepted exactly once |',
        '|---:|---:|---:|---|---:|---:|---:|---:|---|',
        `| ${attempts.length.toLocaleString('en')} | ${accepted.toLocaleString('en')} | ${conflictCount.toLocaleString('en')} (${conflicts.map(([s, n]) => `${s.slice(4)} ${n}`).join(', ')}) | ${others.length ? others.map(([s, n]) => `${s} ×${n}`).join(', ') : 'none'} | ${wallS.toFixed(1)} | ${Math.round(rate)} | ${p(50)} | ${p(99)} | ${exactlyOnce ? 'yes' : '**no**'} (${rows[0].n.toLocaleString('en')} entry rows) |`,
        '',
        `Load average when the run started: ${loadAtStart.toFixed(1)} (a number well above the core count means other work shared the machine and the rate is a floor).`,
        '',
        'Creations of one owner in one account are serialised by an advisory lock (the per-owner key limit); different',
        "owners run in parallel, and the key table's primary key decides every race between two owners of one key.",
        '',
      ].join('\n'),
    );
  } finally {
    for (const c of clients) c.close();
    await bench.close();
  }
}

await runIfMain(import.meta.url, log, runDictBench);
