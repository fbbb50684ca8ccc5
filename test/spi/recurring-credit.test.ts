/**
 * The sandbox's payer of automatic Pix pays through the SPI boundary (docs/spi.md, "The payer's side"): an
 * attempt due is paid by the payer's pacs.008 (idRec, txid, the attempt's end-to-end id, initiated AUTO), claimed
 * in spi_inbound with its ACSP answer and settled on the boundary's batched path; copies of the message, and the
 * payer's or the attempt's job run twice, pay once; above 10.00 the payer refuses as before (no message). Every
 * test leaves the ledger verifying.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { brasiliaDate, fromEpochDay, isBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import type { DueRecurringAttempt } from '../../src/platform/extensions.ts';
import { COBR_TOPICS } from '../../src/pix/cobr/settlement.ts';
import { recurringPayerHandler } from '../../src/sandbox/recurring-payer.ts';
import { payerCreditTransfer } from '../../src/sandbox/spi-institution.ts';
import { receiveSpiMessage } from '../../src/spi/inbound.ts';
import { parseSpiMessage } from '../../src/spi/messages.ts';
import { recurringCreditWriterFor } from '../../src/spi/recurring-credit.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import { waitFor } from '../helpers/wait.ts';
import { recBody } from '../pix/rec-fixtures.ts';

describe('automatic Pix: the sandbox payer pays through the SPI boundary', () => {
  let svc: TestService;
  let party: Party;
  let conta: string;
  let call: Call;
  const now = async () => new Date((await call('GET', '/sandbox/clock')).body.agora);
  const saldo = async () => (await call('GET', '/v2/gn/saldo')).body.saldo as string;
  const businessDayIn = async (days: number) => {
    let day = toEpochDay(brasiliaDate(await now())) + days;
    while (!isBusinessDay(day)) day++;
    return fromEpochDay(day);
  };
  /** The account's clock at 01:00 in Brasília of `date`: the attempts due that day run. */
  const advanceTo = async (date: string) => {
    const ms = Date.parse(`${date}T04:00:00Z`) - (await now()).getTime();
    const res = await call('POST', '/sandbox/clock/advance', { segundos: Math.ceil(ms / 1000) });
    assert.equal(res.status, 200, res.text);
  };
  const cobr = async (txid: string, valor: string, due: string) => {
    const rec = await call(
      'POST',
      '/v2/rec',
      recBody({
        calendario: { dataInicial: brasiliaDate(await now()), periodicidade: 'SEMANAL' },
        valor: { valorRec: valor },
      }),
    );
    assert.equal(rec.status, 201, rec.text);
    assert.equal((await call('POST', `/sandbox/rec/${rec.body.idRec}/aprovar`)).status, 200);
    const res = await call('PUT', `/v2/cobr/${txid}`, {
      idRec: rec.body.idRec,
      calendario: { dataDeVencimento: due },
      valor: { original: valor },
      ajusteDiaUtil: false,
      recebedor: { conta, tipoConta: 'PAGAMENTO', agencia: '0001' },
      devedor: { cpf: '45164632481', nome: 'Fulano de Tal' },
    });
    assert.equal(res.status, 201, res.text);
    return waitFor(async () => {
      const view = (await call('GET', `/v2/cobr/${txid}`)).body;
      return view.status === 'ATIVA' && view;
    }, `${txid} ATIVA`);
  };
  const concluded = (txid: string) =>
    waitFor(async () => {
      const view = (await call('GET', `/v2/cobr/${txid}`)).body;
      return view.status === 'CONCLUIDA' && view;
    }, `${txid} CONCLUIDA`);
  const received = async (txid: string) =>
    (
      await svc.service.ctx.db.query<{ end_to_end_id: string; origin: string }>(
        'select end_to_end_id, origin from received_pix where account_id = $1 and txid = $2',
        [party.accountId, txid],
      )
    ).rows;
  const inbound = async (endToEndId: string) =>
    (
      await svc.service.ctx.db.query<{ kind: string; msg_id: string; answer: string | null }>(
        `select kind, msg_id, answer from spi_inbound where ref_id = $1`,
        [endToEndId],
      )
    ).rows;
  const statusOf = (xml: string) => {
    const m = parseSpiMessage(xml);
    return m.kind === 'pacs.002' ? `${m.status} ${m.originalId}` : m.kind;
  };
  /** What the sandbox's payer is told of an attempt due (src/pix/cobr/settlement.ts builds it alike). */
  const dueAttempt = (view: any, amountCents: number): DueRecurringAttempt => ({
    accountId: party.accountId,
    txid: view.txid,
    idRec: view.idRec,
    endToEndId: view.tentativas[0].endToEndId,
    amountCents,
    chave: party.chaves[0],
    payer: { nome: 'Fulano de Tal', cpf: '45164632481' },
  });

  before(async () => {
    svc = await startTestService();
    party = await svc.newParty();
    call = callerWithFreshToken(party);
    const { rows } = await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [
      party.accountId,
    ]);
    conta = rows[0].conta;
  });
  afterEach(async () => {
    await assertLedgerBalanced(svc.service.ctx.db);
    await assertBalanceMatchesLines(svc.service.ctx.db, party.accountId, await saldo());
  });
  after(() => svc?.close());

  it('an attempt due is paid by the payer’s pacs.008, claimed in spi_inbound with its ACSP, on the batched path', async () => {
    const due = await businessDayIn(3);
    const txids = Array.from({ length: 6 }, (_, i) => `RecinBoundary${i}`.padEnd(30, '0'));
    const views = await Promise.all(txids.map((txid) => cobr(txid, '5.00', due)));
    const before = Number(await saldo());
    const batched = recurringCreditWriterFor(svc.service.ctx.db).written.items;
    await advanceTo(due);
    for (const [n, txid] of txids.entries()) {
      const paid = await concluded(txid);
      const e2e = views[n].tentativas[0].endToEndId as string;
      assert.equal(paid.tentativas[0].status, 'PAGA');
      assert.equal(paid.pix[0].endToEndId, e2e);
      const [claim] = await inbound(e2e);
      assert.equal(claim.kind, 'pacs.008');
      assert.equal(statusOf(claim.answer!), `ACSP ${e2e}`);
      assert.deepEqual(await received(txid), [{ end_to_end_id: e2e, origin: 'spi' }]);
    }
    assert.equal(
      recurringCreditWriterFor(svc.service.ctx.db).written.items - batched,
      txids.length,
      'each settled by the batched statement, none on the locked path',
    );
    assert.equal(Number(await saldo()), before + 5 * txids.length);
  });

  it('copies of the payer’s pacs.008, by MsgId or end-to-end id, delivered at once, pay once and get one answer', async () => {
    const txid = 'RecinCopies'.padEnd(30, '0');
    const view = await cobr(txid, '7.00', await businessDayIn(3));
    const before = Number(await saldo());
    const attempt = dueAttempt(view, 700);
    const order = {
      creditor: { chave: attempt.chave },
      txid,
      idRec: attempt.idRec,
      endToEndId: attempt.endToEndId,
      initiation: 'AUTO' as const,
      amountCents: 700,
      payer: attempt.payer,
    };
    const first = payerCreditTransfer(order, await now());
    const other = payerCreditTransfer(order, await now());
    const answers = await Promise.all(
      [first, first, other, other, first].map((xml) => receiveSpiMessage(svc.service.ctx, xml)),
    );
    assert.deepEqual(
      answers.map((a) => `${a.status} ${statusOf(a.xml!)}`),
      Array(5).fill(`200 ACSP ${attempt.endToEndId}`),
    );
    assert.ok(
      answers.every((a) => a.xml === answers[0].xml),
      'one answer, given to every copy',
    );
    assert.equal((await received(txid)).length, 1);
    assert.equal((await inbound(attempt.endToEndId)).length, 1, 'one claim');
    assert.equal((await concluded(txid)).tentativas[0].status, 'PAGA');
    assert.equal(Number(await saldo()), before + 7);
  });

  it('the attempt’s job and the payer’s job, each run twice at once, pay once', async () => {
    const txid = 'RecinTwice'.padEnd(30, '0');
    const view = await cobr(txid, '3.00', await businessDayIn(3));
    const before = Number(await saldo());
    const ctx = svc.service.ctx;
    const job = <P>(payload: P) => ({ id: 0, topic: 't', payload, attempt: 1, createdAt: new Date(), accountId: null });
    const { rows } = await ctx.db.query<{ id: number }>('select id from recurring_charges where txid = $1', [txid]);
    const attemptJob = job({ cobrId: Number(rows[0].id), accountId: party.accountId, tentativa: 0 });
    const attemptHandler = COBR_TOPICS.attempt.handler(ctx);
    await Promise.all([attemptHandler(attemptJob), attemptHandler(attemptJob)]);
    const payerJobs = async () =>
      (
        await ctx.db.query<{ n: number }>(
          `select count(*)::int as n from outbox where topic = 'sandbox.recurring_payer' and payload->>'txid' = $1`,
          [txid],
        )
      ).rows[0].n;
    assert.equal(await payerJobs(), 2, 'the payer told twice');
    const payer = recurringPayerHandler(ctx);
    const outcomes = await Promise.all([payer(job(dueAttempt(view, 300))), payer(job(dueAttempt(view, 300)))]);
    assert.deepEqual(outcomes, [{ done: true }, { done: true }]);
    await concluded(txid);
    // The payer's own jobs run too: each a copy by then, or the first.
    await waitFor(
      async () =>
        (
          await ctx.db.query<{ n: number }>(
            `select count(*)::int as n from outbox where topic = 'sandbox.recurring_payer' and payload->>'txid' = $1
               and done_at is null`,
            [txid],
          )
        ).rows[0].n === 0,
      'the payer’s jobs done',
    );
    assert.equal((await received(txid)).length, 1, 'paid once');
    assert.equal((await inbound(view.tentativas[0].endToEndId)).length, 1);
    assert.equal(Number(await saldo()), before + 3);
  });

  it('above 10.00 the payer refuses the attempt as before: REJEITADA AM02, no pacs.008', async () => {
    const txid = 'RecinRefused'.padEnd(30, '0');
    const due = await businessDayIn(3);
    const view = await cobr(txid, '50.00', due);
    const before = await saldo();
    await advanceTo(due);
    const refused = await waitFor(async () => {
      const read = (await call('GET', `/v2/cobr/${txid}`)).body;
      return read.status === 'REJEITADA' && read;
    }, 'REJEITADA');
    assert.deepEqual(refused.tentativas[0].rejeicao, {
      codigo: 'AM02',
      descricao: 'Saldo insuficiente do pagador (sandbox: valor acima de 10.00).',
    });
    assert.deepEqual(await inbound(view.tentativas[0].endToEndId), []);
    assert.equal(await saldo(), before);
  });
});
