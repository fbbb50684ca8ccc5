/**
 * No deadlock reaches a client (issue 26 item 1): two accounts send to each other (PUT /v2/gn/pix/:idEnvio,
 * both directions, concurrent workers) while charges of both are paid (the group-committed settlement
 * statement), charges of both linked to a split that passes a share to the other are paid (the locked path:
 * the receiver credited, then the beneficiary), and each refunds Pix the other sent (refund.settle credits the
 * pixd payer). Every request gets
 * its normal answer (never a 5xx), every send and refund settles, and the ledger verifies. On PostgreSQL this
 * is the mix that deadlocked (docs/ledger.md, "Lock order"). PostgreSQL only: the embedded database runs one
 * transaction at a time, so nothing there can deadlock, and CI's PostgreSQL pass runs this file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { conflictRetries } from '../../src/platform/db/conflict-retry.ts';
import { configBody, newBeneficiary, type Beneficiary } from './split-fixtures.ts';

/** Workers per direction and requests per worker: enough overlap to meet every lock, a few seconds in all. */
const SEND_WORKERS_PER_DIRECTION = 4;
const SENDS_PER_WORKER = 3;
const PAYMENTS_PER_ACCOUNT = 6;
const REFUNDS_PER_ACCOUNT = 3;
const SPLIT_PAYMENTS_PER_ACCOUNT = 4;

describe('money moving both ways between two accounts at once', {
  skip: process.env.DATABASE_URL ? false : 'PostgreSQL only (the embedded database cannot deadlock)',
}, () => {
  let svc: TestService;
  let receiver: Receiver;
  const sides: { party: Party; api: WebhookApi; beneficiary: Beneficiary; splitConfigId?: string }[] = [];
  let sequence = 0;
  const newId = (tag: string) => `${tag}${Date.now().toString(36)}${sequence++}`;

  const send = (from: (typeof sides)[number], to: (typeof sides)[number], valor: string, idEnvio = newId('mc')) =>
    from.api.call('PUT', `/v2/gn/pix/${idEnvio}`, {
      valor,
      pagador: { chave: from.party.chaves[0] },
      favorecido: { chave: to.party.chaves[0] },
    });
  const unsettled = async (table: 'sent_pix' | 'refunds') =>
    (
      await svc.service.ctx.db.query<{ n: number }>(
        `select count(*)::int as n from ${table} where status = 'EM_PROCESSAMENTO'`,
      )
    ).rows[0].n;

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    for (const name of ['Conta A', 'Conta B']) {
      const beneficiary = await newBeneficiary(svc, { nome: name });
      const { party } = beneficiary;
      const api = webhookApi(party);
      await api.registerPix(`${receiver.url}/${sides.length}`);
      const funded = await api.call('POST', '/sandbox/pix/pay', { chave: party.chaves[0], valor: '500.00' });
      assert.equal(funded.status, 201, funded.text);
      sides.push({ party, api, beneficiary });
    }
    // Each side's split passes 30 % of what it receives to the other: a payment credits one side, then the other.
    for (const [side, other] of [sides, [...sides].reverse()]) {
      const config = await side.api.call(
        'POST',
        '/v2/gn/split/config',
        configBody('porcentagem', '70.00', [[other.beneficiary, '30.00']]),
      );
      assert.equal(config.status, 201, config.text);
      side.splitConfigId = config.body.id;
    }
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it('answers every request normally, settles everything and keeps the ledger verified', async (t) => {
    const [a, b] = sides;
    // Pix each received from the other, for the refunds below (settled first: only a settled Pix is refunded).
    const received: { side: (typeof sides)[number]; e2eId: string }[] = [];
    for (const [from, to] of [
      [a, b],
      [b, a],
    ])
      for (let n = 0; n < REFUNDS_PER_ACCOUNT; n++) {
        const res = await send(from, to, '1.00');
        assert.equal(res.status, 201, res.text);
        received.push({ side: to, e2eId: res.body.e2eId });
      }
    await waitFor(async () => (await unsettled('sent_pix')) === 0, 'the seeding sends to settle');

    const statuses: { what: string; status: number; text: string; ms: number }[] = [];
    const record = (what: string) => {
      const sinceMs = Date.now();
      return <R extends { status: number; text: string }>(res: R) => {
        statuses.push({ what, status: res.status, text: res.text, ms: Date.now() - sinceMs });
        return res;
      };
    };
    const sendWorker = async (from: (typeof sides)[number], to: (typeof sides)[number]) => {
      for (let n = 0; n < SENDS_PER_WORKER; n++) await send(from, to, '0.07').then(record('send'));
    };
    const payWorker = async (side: (typeof sides)[number]) => {
      for (let n = 0; n < PAYMENTS_PER_ACCOUNT; n++) {
        const cob = await side.api
          .call('POST', '/v2/cob', {
            calendario: { expiracao: 3600 },
            valor: { original: '0.50' },
            chave: side.party.chaves[0],
          })
          .then(record('create charge'));
        if (cob.status === 201)
          await side.api.call('POST', '/sandbox/pix/pay', { txid: cob.body.txid }).then(record('pay charge'));
      }
    };
    const splitPayWorker = async (side: (typeof sides)[number]) => {
      for (let n = 0; n < SPLIT_PAYMENTS_PER_ACCOUNT; n++) {
        const cob = await side.api
          .call('POST', '/v2/cob', {
            calendario: { expiracao: 3600 },
            valor: { original: '1.00' },
            chave: side.party.chaves[0],
          })
          .then(record('create split charge'));
        if (cob.status !== 201) continue;
        const linked = await side.api
          .call('PUT', `/v2/gn/split/cob/${cob.body.txid}/vinculo/${side.splitConfigId}`)
          .then(record('link split'));
        if (linked.status === 204)
          await side.api.call('POST', '/sandbox/pix/pay', { txid: cob.body.txid }).then(record('pay split charge'));
      }
    };
    const refundWorker = async (pix: (typeof received)[number]) =>
      pix.side.api
        .call('PUT', `/v2/pix/${pix.e2eId}/devolucao/${newId('d')}`, { valor: '0.40' })
        .then(record('refund'));

    const startedMs = Date.now();
    await Promise.all([
      ...Array.from({ length: SEND_WORKERS_PER_DIRECTION }, () => [sendWorker(a, b), sendWorker(b, a)]).flat(),
      payWorker(a),
      payWorker(b),
      splitPayWorker(a),
      splitPayWorker(b),
      ...received.map(refundWorker),
    ]);
    for (const what of new Set(statuses.map((s) => s.what))) {
      const ms = statuses
        .filter((s) => s.what === what)
        .map((s) => s.ms)
        .sort((x, y) => x - y);
      t.diagnostic(`${what}: ${ms.length}, median ${ms[ms.length >> 1]} ms, max ${ms.at(-1)} ms`);
    }
    const failures = statuses.filter((s) => s.status >= 500);
    assert.deepEqual(failures, [], 'no 5xx');
    const refused = statuses.filter((s) => s.status >= 400);
    assert.deepEqual(refused, [], 'every request accepted (balances cover every send)');
    assert.equal(
      statuses.length,
      2 * SEND_WORKERS_PER_DIRECTION * SENDS_PER_WORKER +
        4 * PAYMENTS_PER_ACCOUNT +
        6 * SPLIT_PAYMENTS_PER_ACCOUNT +
        received.length,
    );

    await waitFor(
      async () => (await unsettled('sent_pix')) === 0 && (await unsettled('refunds')) === 0,
      'every send and refund to settle',
    );
    const outcomes = await svc.service.ctx.db.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from sent_pix group by status
       union all select 'refund ' || status, count(*)::int from refunds group by status order by 1`,
    );
    assert.deepEqual(
      outcomes.rows.map((r) => `${r.status}: ${r.n}`),
      [
        `REALIZADO: ${2 * REFUNDS_PER_ACCOUNT + 2 * SEND_WORKERS_PER_DIRECTION * SENDS_PER_WORKER}`,
        `refund DEVOLVIDO: ${received.length}`,
      ],
    );
    const divided = await svc.service.ctx.db.query<{ n: number }>(
      'select count(*)::int as n from split_distributions where journal_entry_id is not null',
    );
    assert.equal(divided.rows[0].n, 2 * SPLIT_PAYMENTS_PER_ACCOUNT, 'every split payment passed its share on');
    await assertLedgerBalanced(svc.service.ctx.db);
    t.diagnostic(
      `${statuses.length} requests in ${Date.now() - startedMs} ms, ${conflictRetries.count} conflicts retried`,
    );
  });
});
