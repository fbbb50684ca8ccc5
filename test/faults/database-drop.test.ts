/**
 * The database drops connections under load (a failover, a restart, a proxy's idle timeout): only the
 * requests that used a dropped connection fail, with 503 in their family's format; the process never
 * crashes (an unheard 'error' event would end this very test process); nothing acknowledged is lost;
 * `/health/ready` drains the node while the database refuses connections and recovers after.
 *
 * Dropped connections are a PostgreSQL fault (PGlite runs inside the process), so this file runs on a
 * fresh database of the local PostgreSQL server in both passes of the suite.
 */
// suite: serial (terminates PostgreSQL connections under load): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { cobBody, freshPostgres, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Rounds of concurrent creates and payments, with every pixd connection terminated between rounds. */
const ROUNDS = 12;
const REQUESTS_PER_ROUND = 8;
/** Pacing of the terminations within a round: often enough to hit open transactions, rare enough to let work through. */
const TERMINATE_EVERY_MS = 40;

describe('faults: PostgreSQL connections dropped under load', () => {
  let svc: TestService;
  let party: Party;
  let token: string;
  let database: Awaited<ReturnType<typeof freshPostgres>>;
  let admin: pg.Client;
  const name = () => new URL(database.url).pathname.slice(1);
  const call = (method: string, p: string, body?: unknown) => party.http.request(method, p, { token, body });
  const terminateAll = () =>
    admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name()],
    );

  before(async () => {
    database = await freshPostgres(ADMIN_URL);
    admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    svc = await startTestService({ DATABASE_URL: database.url });
    party = await svc.newParty();
    token = await party.token();
  });
  after(async () => {
    await svc?.close({ keepData: true });
    await svc?.data.discard();
    await admin?.query(`alter database ${name()} with allow_connections true`).catch(() => undefined);
    await admin?.end();
    await database?.drop();
  });

  it('fails only the requests on a dropped connection, with 503, and loses nothing acknowledged', async () => {
    const created: string[] = [];
    const paid: string[] = [];
    const statuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const work = Array.from({ length: REQUESTS_PER_ROUND }, async () => {
        const cob = await call('POST', '/v2/cob', cobBody(party.chaves[0], '12.34'));
        statuses.push(cob.status);
        if (cob.status !== 201) {
          assert.equal(cob.body.type, 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel', cob.text);
          return;
        }
        created.push(cob.body.txid);
        const pay = await call('POST', '/sandbox/pix/pay', { txid: cob.body.txid });
        statuses.push(pay.status);
        if (pay.status === 201) paid.push(cob.body.txid);
      });
      // Terminate again and again while the round's requests are in flight, so connections drop between
      // the statements of open transactions too (a checked-out client with no query running).
      let roundDone = false;
      const terminator = (async () => {
        while (!roundDone) {
          await terminateAll();
          await new Promise((resolve) => setTimeout(resolve, TERMINATE_EVERY_MS));
        }
      })();
      await Promise.all(work);
      roundDone = true;
      await terminator;
    }
    assert.deepEqual(
      statuses.filter((s) => s !== 201 && s !== 503),
      [],
      'every request either succeeded or answered 503',
    );
    // Everything acknowledged is there, and the node serves normally again: a round without drops all succeeds.
    const clean = await Promise.all(
      Array.from({ length: REQUESTS_PER_ROUND }, async () => {
        const cob = await call('POST', '/v2/cob', cobBody(party.chaves[0], '12.34'));
        const pay = cob.status === 201 ? await call('POST', '/sandbox/pix/pay', { txid: cob.body.txid }) : cob;
        return [cob.status, pay.status];
      }),
    );
    assert.deepEqual(clean.flat(), Array(REQUESTS_PER_ROUND * 2).fill(201), 'recovered: no request fails');
    for (const txid of created) {
      const read = await call('GET', `/v2/cob/${txid}`);
      assert.equal(read.status, 200, read.text);
      if (paid.includes(txid)) assert.equal(read.body.status, 'CONCLUIDA');
    }
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('answers 503 and drains (/health/ready) while the database refuses connections, then recovers', async () => {
    await admin.query(`alter database ${name()} with allow_connections false`);
    await terminateAll();
    const refused = await call('POST', '/v2/cob', cobBody(party.chaves[0], '12.34'));
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.type, 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel');
    assert.equal(refused.headers['retry-after'], '1');
    const ready = await svc.anonymous.request('GET', '/health/ready');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.checks.database, 'down');
    assert.equal((await svc.anonymous.request('GET', '/health')).status, 503);
    assert.equal((await svc.anonymous.request('GET', '/health/live')).status, 200, 'the process itself is alive');

    await admin.query(`alter database ${name()} with allow_connections true`);
    await waitFor(async () => (await svc.anonymous.request('GET', '/health/ready')).status === 200, 'ready again');
    const created = await call('POST', '/v2/cob', cobBody(party.chaves[0], '12.34'));
    assert.equal(created.status, 201, created.text);
  });
});
