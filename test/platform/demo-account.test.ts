/**
 * One demo account per database: nodes that start together on one PostgreSQL with empty data directories
 * (a cluster) write the same credentials.json, and a data directory that lost its credentials.json gets the
 * same account back; each used to create another demo account with every scope.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { freshPostgres, startTestService, type TestService } from '../helpers/service.ts';
import type { Database } from '../../src/platform/db/database.ts';

const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function demoAccounts(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from accounts where nome = 'Pixd Demo Ltda'`,
  );
  return rows[0].n;
}

/** The demo party gets a token over HTTPS with its own data directory's credentials.json and certificate. */
async function assertDemoWorks(svc: TestService): Promise<void> {
  const token = await svc.demo.token();
  assert.equal((await svc.demo.http.request('GET', '/v2/gn/saldo/', { token })).status, 200);
}

describe('the demo account', () => {
  const services: TestService[] = [];
  after(async () => {
    for (const svc of services) await svc.close();
  });

  it('comes back, the same, to a data directory that lost its credentials.json', async () => {
    const first = await startTestService();
    const before = first.demo;
    await first.close({ keepData: true });
    fs.rmSync(path.join(first.data.dataDir, 'credentials.json'));
    fs.rmSync(path.join(first.data.dataDir, 'certificates'), { recursive: true });
    const again = await startTestService({}, { reuse: first.data });
    services.push(again);
    assert.equal(again.demo.clientId, before.clientId);
    assert.equal(again.demo.clientSecret, before.clientSecret);
    assert.equal(await demoAccounts(again.service.ctx.db), 1);
    await assertDemoWorks(again);
  });

  it('is one for the nodes of a cluster starting together on empty data directories', async () => {
    // A cluster is several nodes on one PostgreSQL: this case runs there in both passes of the suite.
    const database = await freshPostgres(ADMIN_URL);
    const nodes: TestService[] = [];
    try {
      nodes.push(...(await Promise.all([1, 2, 3].map(() => startTestService({ DATABASE_URL: database.url })))));
      assert.equal(await demoAccounts(nodes[0].service.ctx.db), 1);
      for (const node of nodes) {
        assert.equal(node.demo.clientId, nodes[0].demo.clientId);
        assert.equal(node.demo.clientSecret, nodes[0].demo.clientSecret);
        await assertDemoWorks(node);
      }
    } finally {
      for (const node of nodes) await node.close();
      await database.drop();
    }
  });
});
