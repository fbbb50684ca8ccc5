/**
 * Group commit of charge creation, on the real database: creates that arrive while a statement is in flight
 * are written by one statement, and each still gets its own outcome (a foreign or removed key, a duplicate
 * txid refuse only their own charge). The HTTPS view of the same is in cob.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { cobBody, startTestService, type TestService } from '../helpers/service.ts';
import { createCob } from '../../src/pix/cob/service.ts';
import { batcherFor } from '../../src/pix/charges/create-batcher.ts';
import type { Caller } from '../../src/pix/shared/caller.ts';
import type { CobCreate } from '../../src/pix/cob/schemas.ts';
import { clusterTurn, GROUP_STATEMENT_KINDS } from '../../src/platform/db/group-commit.ts';
import { waitFor } from '../helpers/wait.ts';

describe('charge creation group commit', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  const txid = (n: number) => `GroupCommitTxid00000000000${String(n).padStart(4, '0')}`;
  const body = (chave: string, original: string) => cobBody(chave, original) as CobCreate;
  const caller = (): Caller => ({
    accountId: svc.demo.accountId,
    now: svc.clock.now(),
    publicUrl: svc.baseUrl,
    chargeCreated: [],
  });
  const written = () => ({ ...batcherFor(svc.service.ctx.db).written });
  const reason = (outcome: PromiseSettledResult<unknown>) => (outcome as PromiseRejectedResult).reason;

  it('coalesces concurrent creates into fewer statements; a foreign or removed key refuses only its own charge', async () => {
    const db = svc.service.ctx.db;
    const other = await svc.newParty();
    const token = await svc.demo.token();
    const removedKey = (await svc.demo.http.request('POST', '/v2/gn/evp', { token })).body.chave as string;
    assert.equal((await svc.demo.http.request('DELETE', `/v2/gn/evp/${removedKey}`, { token })).status, 200);

    const start = written();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, n) => {
        if (n === 5) return createCob(db, caller(), txid(n), body(other.chaves[0], '11.00'));
        if (n === 6) return createCob(db, caller(), txid(n), body(removedKey, '11.00'));
        return createCob(db, caller(), txid(n), body(svc.demo.chaves[0], `${n + 20}.00`));
      }),
    );
    const end = written();
    assert.equal(end.items - start.items, 30);
    assert.ok(
      end.statements - start.statements <= 3,
      `coalesced: ${end.statements - start.statements} statements for 30 creates`,
    );

    assert.equal(reason(outcomes[5]).violations[0].reason, 'a chave não pertence a este usuário recebedor.');
    assert.equal(reason(outcomes[6]).violations[0].reason, 'a chave foi removida.');
    for (const [n, outcome] of outcomes.entries()) {
      if (n === 5 || n === 6) continue;
      assert.equal(outcome.status, 'fulfilled', `create ${n}`);
      const read = await svc.demo.http.request('GET', `/v2/cob/${txid(n)}`, { token });
      assert.equal(read.body.valor.original, `${n + 20}.00`, 'each write landed on its own charge');
    }
    const { rows } = await db.query<{ n: number }>(
      "select count(*)::int as n from charges where txid like 'GroupCommitTxid%'",
    );
    assert.equal(rows[0].n, 28, 'nothing written for the refused creates');
  });

  it('a duplicate txid in a coalesced statement writes nothing there; one by one, only the duplicate is refused', async () => {
    const db = svc.service.ctx.db;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, n) =>
        createCob(db, caller(), txid(n < 10 ? 100 + n : 105), body(svc.demo.chaves[0], `${n + 50}.00`)),
      ),
    );
    const dup = [outcomes[5], outcomes[10], outcomes[11]];
    assert.equal(dup.filter((o) => o.status === 'fulfilled').length, 1, 'one create per txid wins');
    for (const lost of dup.filter((o) => o.status === 'rejected'))
      assert.equal(reason(lost).violations[0].property, 'txid');
    for (const n of [0, 1, 2, 3, 4, 6, 7, 8, 9]) assert.equal(outcomes[n].status, 'fulfilled', `create ${n}`);
    const { rows } = await db.query<{ n: number }>(
      'select count(*)::int as n from charges where txid >= $1 and txid <= $2',
      [txid(100), txid(109)],
    );
    assert.equal(rows[0].n, 10);
  });

  it('a row the database rejects for another reason fails only its own create, not the rest of its batch', async () => {
    const db = svc.service.ctx.db;
    // Bypasses the HTTP guard on purpose: a NUL in text is what PostgreSQL refuses, standing for any
    // rejection validation did not foresee. Another tenant's creates in the same batch must all land.
    const other = await svc.newParty();
    const otherCaller = (): Caller => ({ ...caller(), accountId: other.accountId });
    const poisoned = { ...body(svc.demo.chaves[0], '77.00'), solicitacaoPagador: 'x\u0000y' };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 16 }, (_, n) =>
        n % 4 === 0
          ? createCob(db, caller(), txid(200 + n), poisoned)
          : createCob(db, otherCaller(), txid(200 + n), body(other.chaves[0], `${n + 30}.00`)),
      ),
    );
    for (const [n, outcome] of outcomes.entries())
      assert.equal(outcome.status, n % 4 === 0 ? 'rejected' : 'fulfilled', `create ${n}`);
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from charges where account_id = $1', [
      other.accountId,
    ]);
    assert.equal(rows[0].n, 12, "every one of the other tenant's creates was written");
  });

  it("takes turns with the other nodes on the database: a statement waits while another node's runs, and the creates arriving meanwhile share the next", {
    skip: !process.env.DATABASE_URL && 'nodes share a PostgreSQL database; the embedded one has one node',
  }, async () => {
    const db = svc.service.ctx.db;
    // Another node's statement of the same kind, holding its turn until it commits.
    const otherNode = new pg.Client({ connectionString: svc.data.databaseUrl });
    await otherNode.connect();
    try {
      await otherNode.query('begin');
      await otherNode.query(`with ${clusterTurn(GROUP_STATEMENT_KINDS.chargeCreate)} select 1 from turn`);
      const start = written();
      let settled = 0;
      const create = (n: number) =>
        createCob(db, caller(), txid(300 + n), body(svc.demo.chaves[0], `${n + 10}.50`)).finally(() => settled++);
      const first = create(0);
      // This node's statement is sent and waits for the turn (a lock not granted), holding no row.
      await waitFor(async () => {
        const { rows } = await otherNode.query<{ n: number }>(
          "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted",
        );
        return rows[0].n === 1;
      }, 'the statement waiting for its turn');
      const rest = Array.from({ length: 20 }, (_, n) => create(n + 1));
      assert.equal(settled, 0, "no create finished while the other node's statement ran");
      await otherNode.query('commit');
      await Promise.all([first, ...rest]);
      const end = written();
      assert.equal(end.items - start.items, 21);
      assert.ok(end.statements - start.statements <= 3, `${end.statements - start.statements} statements`);
    } finally {
      await otherNode.end();
    }
  });
});
