/**
 * The settlement path under concurrency: payments of charges through the sandbox pay endpoint (a pacs.008 each,
 * settled on the SPI boundary's group-committed charge path) and written by the engine's batcher (SettlementBatcher)
 * keep their own outcomes (their reads coalesced too), a charge paid many times at once is paid exactly once, a
 * charge that changed between the settlement read and its write is not paid by that write, and the event of a key
 * with no webhook is stored done unless a registration of the key raced the payment.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { readChargeForSettlement, type ChargeForSettlement, type Settlement } from '../../src/pix/payments/store.ts';
import { settlementBatcherFor, settlementReaderFor } from '../../src/pix/payments/settlement-batcher.ts';
import { pixEventJob } from '../../src/pix/received/events.ts';
import { newChargeVersion } from '../../src/pix/charges/store.ts';
import { newEndToEndId } from '../../src/platform/institution.ts';
import { savePixWebhook } from '../../src/pix/webhook/store.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { SANDBOX_PAY_ORIGIN } from '../../src/sandbox/payer.ts';
import { chargeCreditWriterFor } from '../../src/spi/credit.ts';

describe('settlement path under concurrency', () => {
  let svc: TestService;
  const parties: { party: Party; token: string }[] = [];
  const call = (p: { party: Party; token: string }, method: string, path: string, body?: unknown) =>
    p.party.http.request(method, path, { token: p.token, body });
  const createCob = async (p: { party: Party; token: string }, valor: string) => {
    const res = await call(p, 'POST', '/v2/cob', cobBody(p.party.chaves[0], valor));
    assert.equal(res.status, 201, res.text);
    return res.body.txid as string;
  };
  const saldo = async (p: { party: Party; token: string }) =>
    (await call(p, 'GET', '/v2/gn/saldo/')).body.saldo as string;

  before(async () => {
    svc = await startTestService();
    for (let i = 0; i < 3; i++) {
      const party = await svc.newParty();
      parties.push({ party, token: await party.token() });
    }
    // A receiver's first payment creates its ledger account, through the locked path; later ones take the
    // settlement path, which this file is about.
    for (const p of parties) {
      const res = await call(p, 'POST', '/sandbox/pix/pay', { txid: await createCob(p, '11.00') });
      assert.equal(res.status, 201, res.text);
    }
  });
  afterEach(async () => {
    await assertLedgerBalanced(svc.service.ctx.db);
    for (const p of parties) await assertBalanceMatchesLines(svc.service.ctx.db, p.party.accountId, await saldo(p));
  });
  after(() => svc.close());

  /** A payment of `charge` as the engine's settlement path writes it, decided on `charge` as read. */
  const settlementOf = (charge: ChargeForSettlement, amountCents: number, endToEndId?: string): Settlement => {
    const now = new Date();
    const pix = {
      end_to_end_id: endToEndId ?? newEndToEndId(now),
      account_id: charge.account_id,
      charge_id: charge.id,
      txid: charge.txid,
      chave: charge.chave,
      amount_cents: amountCents,
      received_at: now,
      pagador_cpf: '11144477735',
      pagador_cnpj: null,
      pagador_nome: 'Pagador',
      info_pagador: null,
      components: null,
      origin: SANDBOX_PAY_ORIGIN,
    };
    return {
      charge,
      pix,
      ledger: { externalId: charge.external_ledger_id!, availableId: charge.available_ledger_id! },
      event: pixEventJob(pix, [], now),
    };
  };

  it('pays many charges of several receivers at once, each with its own answer and entry', async () => {
    // The pay endpoint's pacs.008 to a charge is settled on the SPI boundary's charge path: the engine's read, its
    // own group-committed write (src/spi/credit.ts).
    const writer = chargeCreditWriterFor(svc.service.ctx.db);
    const reader = settlementReaderFor(svc.service.ctx.db);
    const before = { ...writer.written };
    const readBefore = { ...reader.written };
    const saldosBefore = await Promise.all(parties.map(saldo));
    // 12.34 and up: above the sandbox auto-payer's limit, so only these payments pay them.
    const charges = await Promise.all(
      Array.from({ length: 30 }, async (_, n) => {
        const p = parties[n % parties.length];
        const valor = `${12 + n}.${String(n).padStart(2, '0')}`;
        return { p, valor, txid: await createCob(p, valor) };
      }),
    );
    const paid = await Promise.all(charges.map((c) => call(c.p, 'POST', '/sandbox/pix/pay', { txid: c.txid })));
    paid.forEach((res, n) => {
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.txid, charges[n].txid, 'each request answers its own payment');
      assert.equal(res.body.valor, charges[n].valor);
    });
    assert.equal(new Set(paid.map((res) => res.body.endToEndId)).size, charges.length);
    for (const c of charges) {
      const read = await call(c.p, 'GET', `/v2/cob/${c.txid}`);
      assert.equal(read.body.status, 'CONCLUIDA');
      assert.equal(read.body.pix.length, 1);
      assert.equal(read.body.pix[0].valor, c.valor);
    }
    // Each receiver's balance grew by exactly what it was paid.
    for (const [k, p] of parties.entries()) {
      const receivedCents = charges
        .filter((c) => c.p === p)
        .reduce((sum, c) => sum + Math.round(Number(c.valor) * 100), 0);
      assert.equal(Math.round(Number(await saldo(p)) * 100), Math.round(Number(saldosBefore[k]) * 100) + receivedCents);
    }
    const events = await svc.service.ctx.db.query<{ n: number }>(
      `select count(*)::int as n from outbox where topic = 'webhook.pix' and payload->'pix'->0->>'endToEndId' = any($1)`,
      [paid.map((res) => res.body.endToEndId)],
    );
    assert.equal(events.rows[0].n, charges.length, 'one webhook event per payment, written with it');
    const claims = await svc.service.ctx.db.query<{ n: number }>(
      `select count(*)::int as n from spi_inbound where kind = 'pacs.008' and answer is not null and ref_id = any($1)`,
      [paid.map((res) => res.body.endToEndId)],
    );
    assert.equal(claims.rows[0].n, charges.length, 'each pacs.008 claimed with its answer, written with it');
    assert.equal(writer.written.items - before.items, charges.length, 'all through the group-committed charge path');
    // One read per payment, the engine's coalesced one: the payer's app's (the charge's key and amount), handed to
    // the inbound path with the message, which so does not read the charge again.
    assert.equal(reader.written.items - readBefore.items, charges.length, 'one read per payment, through the reader');
    // On PostgreSQL the requests overlap and so do their writes; PGlite's one connection mostly runs them in turn.
    if (svc.service.ctx.db.kind === 'postgres')
      assert.ok(
        writer.written.statements - before.statements < charges.length,
        'payments arriving while a statement is in flight share the next one',
      );
    // On PostgreSQL the requests overlap and so do their reads; PGlite's one connection mostly runs them in turn.
    if (svc.service.ctx.db.kind === 'postgres')
      assert.ok(
        reader.written.statements - readBefore.statements < charges.length,
        'reads arriving while one is in flight share a statement',
      );
  });

  it('pays a charge paid many times at once exactly once', async () => {
    const p = parties[0];
    const saldoBefore = Math.round(Number(await saldo(p)) * 100);
    for (let round = 0; round < 3; round++) {
      const txid = await createCob(p, '15.00');
      const attempts = await Promise.all(
        Array.from({ length: 8 }, () => call(p, 'POST', '/sandbox/pix/pay', { txid })),
      );
      const ok = attempts.filter((res) => res.status === 201);
      assert.equal(ok.length, 1, `exactly one success, got ${attempts.map((res) => res.status).join(', ')}`);
      for (const res of attempts.filter((r) => r.status !== 201)) {
        assert.equal(res.status, 400, res.text);
        assert.ok(['cobranca_paga', 'pix_duplicado'].includes(res.body.violacoes[0].razao), res.text);
      }
      const read = await call(p, 'GET', `/v2/cob/${txid}`);
      assert.equal(read.body.pix.length, 1);
    }
    assert.equal(Math.round(Number(await saldo(p)) * 100), saldoBefore + 3 * 1500);
  });

  it('coalesced writes: a charge changed since its read and a duplicate end-to-end id fail alone', async () => {
    const db = svc.service.ctx.db;
    const p = parties[1];
    const saldoBefore = Math.round(Number(await saldo(p)) * 100);
    const txids = await Promise.all(Array.from({ length: 6 }, () => createCob(p, '20.00')));
    const reads = await Promise.all(
      txids.map((txid) => readChargeForSettlement(db, { kind: 'charge', accountId: p.party.accountId, txid })),
    );
    // The charge of the first changes after its read (as a split link or a revision would change it).
    await newChargeVersion(db, reads[0]!.id);
    const now = new Date();
    // The last two share an end-to-end id: the database takes one and refuses the other.
    const settlements = reads.map((charge, n) => settlementOf(charge!, 2000, n >= 4 ? 'E00000000' : undefined));
    const outcomes = await Promise.allSettled(settlements.map((s) => settlementBatcherFor(db).submit(s)));
    assert.deepEqual(outcomes[0], { status: 'fulfilled', value: undefined }, 'the changed charge is not paid');
    for (const n of [1, 2, 3]) {
      assert.equal(outcomes[n].status, 'fulfilled');
      assert.equal((outcomes[n] as PromiseFulfilledResult<{ txid: string }>).value.txid, txids[n]);
    }
    const duplicates = [outcomes[4], outcomes[5]];
    assert.equal(duplicates.filter((o) => o.status === 'fulfilled' && o.value).length, 1, 'one of the two is paid');
    assert.equal(duplicates.filter((o) => o.status === 'rejected').length, 1, 'the other alone fails');
    const statuses = await db.query<{ status: string }>('select status from charges where id = any($1) order by id', [
      reads.map((r) => r!.id),
    ]);
    assert.equal(statuses.rows.filter((r) => r.status === 'CONCLUIDA').length, 4);
    assert.equal(Math.round(Number(await saldo(p)) * 100), saldoBefore + 4 * 2000);
    // Paid through the API, the changed charge is decided again and paid once.
    const res = await call(p, 'POST', '/sandbox/pix/pay', { txid: txids[0] });
    assert.equal(res.status, 201, res.text);
  });

  it('stores the event of a key with no webhook done, and keeps it for a registration that raced the payment', async () => {
    const db = svc.service.ctx.db;
    const p = parties[2];
    const api = webhookApi(p.party);
    const eventOf = async (endToEndId: string) =>
      (
        await db.query<{ done: boolean; attempts: number }>(
          `select done_at is not null as done, attempts from outbox
           where topic = 'webhook.pix' and payload->'pix'->0->>'endToEndId' = $1`,
          [endToEndId],
        )
      ).rows;
    // No webhook: the event is stored as its delivery would have left it (no attempt; listed as not sent).
    const quiet = await api.payNewCharge('13.00');
    assert.deepEqual(await eventOf(quiet.endToEndId), [{ done: true, attempts: 0 }]);
    const listed = (await api.deliveries('webhook.pix')).find((d) => d.assunto === quiet.endToEndId);
    assert.equal(listed?.situacao, 'nao_enviado');
    assert.deepEqual(listed.tentativas, []);

    // A registration of the key not yet committed when the payment is written: the payment waits for it on the
    // key's row and keeps its event, which the new webhook then receives.
    const receiver = await Receiver.start();
    try {
      const txid = await createCob(p, '14.00');
      const charge = await readChargeForSettlement(db, { kind: 'charge', accountId: p.party.accountId, txid });
      let commit!: () => void;
      let saved!: () => void;
      const committed = new Promise<void>((resolve) => (commit = resolve));
      const holding = new Promise<void>((resolve) => (saved = resolve));
      const registration = db.tx(async (tx) => {
        await savePixWebhook(tx, {
          chave: p.party.chaves[0],
          account_id: p.party.accountId,
          webhook_url: receiver.url,
          skip_mtls: false,
          created_at: new Date(),
        });
        saved();
        await committed;
      });
      await holding;
      const paying = settlementBatcherFor(db).submit(settlementOf(charge!, 1400));
      try {
        // PostgreSQL: the payment's statement is under way, waiting on the key's row (PGlite runs it after the
        // transaction, one connection).
        if (db.kind === 'postgres')
          await waitFor(
            async () =>
              (
                await db.query(
                  `select 1 from pg_locks l join pg_stat_activity a on a.pid = l.pid
                   where not l.granted and a.datname = current_database()`,
                )
              ).rows.length > 0,
            'the payment to wait for the registration',
          );
      } finally {
        commit();
        await registration;
      }
      const paid = await paying;
      assert.ok(paid, 'the charge is paid');
      assert.equal((await eventOf(paid.end_to_end_id)).length, 1);
      const delivered = await waitFor(
        async () => receiver.calls.find((c) => c.body?.pix?.[0]?.endToEndId === paid.end_to_end_id),
        'the raced payment to reach the new webhook',
      );
      assert.equal(delivered.path, '/pix');
    } finally {
      await receiver.close();
    }
  });
});
