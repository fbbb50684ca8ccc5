/**
 * A database failover without a proxy (docs/operations.md, "Failover"): a primary and a synchronous streaming
 * standby made here with PostgreSQL's own tools (initdb, pg_basebackup -R, pg_ctl) on free ports, pixd on
 * DATABASE_URL naming both (`target_session_attrs=read-write`), charges created and paid by concurrent clients
 * while the standby is promoted and the old primary stopped. Nothing acknowledged is lost, the node writes
 * to the new primary within 5 s of the old one stopping, the outbox and webhooks carry on there, and the
 * ledger verifies.
 *
 * Both servers are this file's own, so a run does not depend on DATABASE_URL; it runs in the suite's PostgreSQL
 * pass only (the same ~45 s twice would buy nothing). The servers and their files are removed afterwards.
 */
// suite: serial (stops a PostgreSQL server under load): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, trustTestCa, webhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';

/** Concurrent clients creating and paying charges, and the payments acknowledged before the failover starts. */
const WORKERS = 6;
const PAYMENTS_BEFORE_FAILOVER = 20;
/** Payments acknowledged after the old primary stopped before the load ends. */
const PAYMENTS_AFTER_FAILOVER = 20;
/** The node writes to the new primary within this long of the old one stopping (issue 26, item 5). */
const BACK_WITHIN_MS = 5_000;

const execFileAsync = promisify(execFile);
const BIN = (() => {
  const root = '/usr/lib/postgresql';
  const version = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  return version ? path.join(root, version, 'bin') : '';
})();
/** initdb and postgres refuse to run as root: the servers then run as the postgres user. */
const asServerUser = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
const tool = async (name: string, ...args: string[]) => {
  const [command, ...rest] = [...asServerUser, path.join(BIN, name), ...args];
  return execFileAsync(command, rest, { encoding: 'utf8' });
};

/** One PostgreSQL server of this file: its data directory, port and an admin query. */
class Server {
  constructor(
    readonly dir: string,
    readonly port: number,
  ) {}
  async start() {
    await tool('pg_ctl', 'start', '-w', '-D', this.dir, '-l', `${this.dir}.log`);
  }
  async stop(mode: 'fast' | 'immediate') {
    await tool('pg_ctl', 'stop', '-w', '-m', mode, '-D', this.dir).catch(() => undefined);
  }
  async query<R extends pg.QueryResultRow>(text: string): Promise<R[]> {
    const client = new pg.Client({ host: '127.0.0.1', port: this.port, user: 'postgres', database: 'postgres' });
    await client.connect();
    try {
      return (await client.query<R>(text)).rows;
    } finally {
      await client.end();
    }
  }
}

describe('faults: PostgreSQL fails over to a synchronous standby under load', {
  skip: !process.env.DATABASE_URL && "the suite's PostgreSQL pass runs it (DATABASE_URL set)",
}, () => {
  let root: string;
  let primary: Server;
  let standby: Server;
  let svc: TestService;
  let party: Party;
  let receiver: Receiver;

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-failover-'));
    if (asServerUser.length) await execFileAsync('chown', ['postgres', root]);
    primary = new Server(path.join(root, 'primary'), await freePort());
    standby = new Server(path.join(root, 'standby'), await freePort());
    await tool('initdb', '-D', primary.dir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8');
    // fsync off: the test is about a promotion, not a power cut; a commit still waits for the standby.
    const settings = [
      `port = ${primary.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${root}'`,
      'fsync = off',
      'max_connections = 80',
      'shared_buffers = 16MB',
    ];
    fs.appendFileSync(path.join(primary.dir, 'postgresql.conf'), `${settings.join('\n')}\n`);
    await primary.start();
    const basebackup = ['-D', standby.dir, '-R', '-X', 'stream', '--no-sync', '-c', 'fast'];
    await tool('pg_basebackup', ...basebackup, '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres');
    fs.appendFileSync(path.join(standby.dir, 'postgresql.conf'), `port = ${standby.port}\n`);
    await standby.start();
    // Only now, and only on the primary: a commit is acknowledged once the standby has it.
    await primary.query("alter system set synchronous_standby_names = '*'");
    await primary.query('select pg_reload_conf()');
    await waitFor(
      async () =>
        (await primary.query<{ s: string }>('select sync_state as s from pg_stat_replication'))[0]?.s === 'sync',
      'the standby streaming synchronously',
    );

    const hosts = `127.0.0.1:${primary.port},127.0.0.1:${standby.port}`;
    svc = await startTestService({
      DATABASE_URL: `postgres://postgres@${hosts}/postgres?target_session_attrs=read-write`,
    });
    party = await svc.newParty();
    trustTestCa();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    await webhookApi(party).registerPix(`${receiver.url}/failover`);
  });

  after(async () => {
    await svc?.close();
    await receiver?.close();
    await standby?.stop('immediate');
    await primary?.stop('immediate');
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('loses nothing acknowledged, writes to the new primary within 5 s, delivers webhooks, and the ledger verifies', async (t) => {
    const token = await party.token();
    const call = (method: string, p: string, body?: unknown) => party.http.request(method, p, { token, body });
    const charges: string[] = [];
    const payments: { txid: string; endToEndId: string; atMs: number }[] = [];
    const statuses = new Map<number, number>();
    let stoppedAtMs = Number.POSITIVE_INFINITY;
    let done = false;
    const worker = async () => {
      while (!done) {
        const cob = await call('POST', '/v2/cob', {
          calendario: { expiracao: 3600 },
          valor: { original: '25.00' },
          chave: party.chaves[0],
        });
        statuses.set(cob.status, (statuses.get(cob.status) ?? 0) + 1);
        if (cob.status !== 201) continue;
        charges.push(cob.body.txid);
        const paid = await call('POST', '/sandbox/pix/pay', { txid: cob.body.txid });
        statuses.set(paid.status, (statuses.get(paid.status) ?? 0) + 1);
        if (paid.status === 201)
          payments.push({ txid: cob.body.txid, endToEndId: paid.body.endToEndId, atMs: Date.now() });
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, worker));
    const paidSince = (sinceMs: number) => payments.filter((p) => p.atMs > sinceMs);
    try {
      await waitFor(async () => payments.length >= PAYMENTS_BEFORE_FAILOVER, 'load under way', 60_000);
      await tool('pg_ctl', 'promote', '-w', '-D', standby.dir);
      await primary.stop('fast');
      stoppedAtMs = Date.now();
      await waitFor(
        async () => paidSince(stoppedAtMs).length >= PAYMENTS_AFTER_FAILOVER,
        'payments on the new primary',
        30_000,
      );
    } finally {
      done = true;
      await load;
    }
    const backAfterMs = paidSince(stoppedAtMs)[0].atMs - stoppedAtMs;
    t.diagnostic(`back after ${backAfterMs} ms; answers ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok(backAfterMs <= BACK_WITHIN_MS, `first payment ${backAfterMs} ms after the old primary stopped`);
    // Only the requests caught by the failover fail, with 503 (the database out of reach), never a 500.
    assert.deepEqual(
      [...statuses.keys()].filter((status) => ![200, 201, 503].includes(status)),
      [],
      JSON.stringify(Object.fromEntries(statuses)),
    );

    // Every acknowledged charge and payment is on the new primary, read through the node.
    const db = svc.service.ctx.db;
    const stored = await db.query<{ txid: string; status: string }>(
      'select txid, status from charges where txid = any($1)',
      [charges],
    );
    const statusOf = new Map(stored.rows.map((row) => [row.txid, row.status]));
    for (const txid of charges) assert.ok(statusOf.has(txid), `charge ${txid}`);
    for (const { txid } of payments) assert.equal(statusOf.get(txid), 'CONCLUIDA', `paid charge ${txid}`);
    // The outbox carries on from the new primary: every acknowledged payment's webhook arrives.
    await waitFor(
      async () => {
        const delivered = new Set(
          receiver
            .callsTo('/failover/pix')
            .flatMap((c) => (c.body as { pix: { endToEndId: string }[] }).pix.map((p) => p.endToEndId)),
        );
        return payments.every((p) => delivered.has(p.endToEndId));
      },
      'every payment webhook delivered',
      30_000,
    );
    await assertLedgerBalanced(db);
    assert.equal((await standby.query<{ r: boolean }>('select pg_is_in_recovery() as r'))[0].r, false);
  });
});
