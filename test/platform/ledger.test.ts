/**
 * Posted totals: kept by the statement that writes the lines, guarded by the database, and verifiable by
 * `pixd ledger verify` (the real command, through the running server's operator API).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runPixd } from '../helpers/cli.ts';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { InsufficientBalance, ledgerCode, transfer } from '../../src/platform/ledger/ledger.ts';

describe('ledger: posted totals and their verification', () => {
  let svc: TestService;
  let party: Party;
  let token: string;
  const call = (method: string, p: string, body?: unknown) => party.http.request(method, p, { token, body });
  const verify = (...flags: string[]) =>
    runPixd(['ledger', 'verify', '--data-dir', svc.data.dataDir, ...flags], { DATABASE_URL: svc.data.databaseUrl });

  before(async () => {
    svc = await startTestService();
    party = await svc.newParty();
    token = await party.token();
  });
  after(() => svc.close());

  it('keeps the posted total equal to the lines through payments and refunds', async () => {
    // Above 10.00, so the sandbox's fictitious payer leaves them to us.
    for (const original of ['12.34', '20.66']) {
      const cob = await call('POST', '/v2/cob', cobBody(party.chaves[0], original));
      assert.equal(cob.status, 201, cob.text);
      const paid = await call('POST', '/sandbox/pix/pay', { txid: cob.body.txid, valor: original });
      assert.equal(paid.status, 201, paid.text);
    }
    const saldo = (await call('GET', '/v2/gn/saldo/')).body.saldo as string;
    assert.equal(saldo, '33.00');
    await assertBalanceMatchesLines(svc.service.ctx.db, party.accountId, saldo);
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('refuses, in the database, a posting that would overdraw a customer balance', async () => {
    const db = svc.service.ctx.db;
    await assert.rejects(
      db.tx((sql) =>
        transfer(sql, {
          kind: 'teste',
          reference: 'overdraw',
          accountId: party.accountId,
          at: svc.clock.now(),
          from: ledgerCode.available(party.accountId),
          to: ledgerCode.externalPix,
          amountCents: 3301,
        }),
      ),
      InsufficientBalance,
    );
    const saldo = (await call('GET', '/v2/gn/saldo/')).body.saldo as string;
    assert.equal(saldo, '33.00', 'the refused entry left no line and no total behind');
    await assertLedgerBalanced(db);
  });

  it('pixd ledger verify: exit 0 on a sound ledger, 2 with the account named when a total drifts', async () => {
    const sound = await verify();
    assert.equal(sound.status, 0, sound.stderr + sound.stdout);
    assert.match(sound.stdout, /^ledger ok: journal sums to zero, \d+ posted totals equal their lines/);

    const db = svc.service.ctx.db;
    const code = ledgerCode.available(party.accountId);
    await db.query('update ledger_accounts set balance_cents = balance_cents + 7 where code = $1', [code]);
    try {
      const drifted = await verify('--json');
      assert.equal(drifted.status, 2, drifted.stderr + drifted.stdout);
      const report = JSON.parse(drifted.stdout);
      assert.equal(report.ok, false);
      assert.deepEqual(report.mismatches, [{ code, totalCents: 3307, linesCents: 3300 }]);
      assert.equal(report.journalCents, 0, 'the lines themselves are still sound');
      const text = await verify();
      assert.match(text.stdout, new RegExp(`${code}: total 3307, lines 3300`));
    } finally {
      await db.query('update ledger_accounts set balance_cents = balance_cents - 7 where code = $1', [code]);
    }
    assert.equal((await verify()).status, 0);
  });
});
