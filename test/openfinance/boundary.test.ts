/**
 * Open Finance payments arrive through the SPI boundary (docs/spi.md, "The payer's side"): the sandbox's payer
 * institution pays an authorised payment by sending a pacs.008 initiated by a payment initiator (`INIC`) into the
 * node's inbound path, claimed in `spi_inbound` by the payment's end-to-end id, and the payment is `aceito` only
 * on pixd's ACSP; a RJCT (the receiving account's settings) makes it `rejeitado` in the engine's words with
 * nothing credited; a settlement run twice, or one that died between the credit and the status move, credits
 * once and moves the payment once. Every scenario ends with the ledger verified.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PARCEL_SETTLE_TOPIC } from '../../src/openfinance/pix/transitions.ts';
import type { OutboxJob } from '../../src/platform/outbox/jobs.ts';
import { parseSpiMessage } from '../../src/spi/messages.ts';
import { initiatedCreditTransfer } from '../../src/sandbox/spi-institution.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import { waitFor } from '../helpers/wait.ts';
import { PAYER_CPF, consentAt, dateIn, demoAccount } from './helpers.ts';

describe('Open Finance payments through the SPI boundary', () => {
  let svc: TestService;
  let call: Call;
  let idParticipante: string;
  let conta: string;

  before(async () => {
    svc = await startTestService();
    call = callerWithFreshToken(svc.demo);
    const config = await call('PUT', '/v1/config', {
      redirectURL: 'https://app.example/retorno',
      webhookURL: 'https://app.example/of',
    });
    assert.equal(config.status, 200, config.text);
    idParticipante = (await call('GET', '/v1/participantes')).body.participantes[0].identificador;
    conta = (await demoAccount(svc)).conta;
  });
  after(() => svc?.close());

  const db = () => svc.service.ctx.db;
  const saldoCents = async () => Math.round(Number((await call('GET', '/v2/gn/saldo')).body.saldo) * 100);
  const period = () => `inicio=${dateIn(svc, -1)}&fim=${dateIn(svc, 1)}`;

  /** The pacs.008 claims of an end-to-end id, with pixd's answer to each. */
  const claims = async (endToEndId: string) =>
    (
      await db().query<{ msg_id: string; answer: string | null }>(
        `select msg_id, answer from spi_inbound where kind = 'pacs.008' and ref_id = $1`,
        [endToEndId],
      )
    ).rows;
  const received = async (endToEndId: string) =>
    (
      await db().query<{ origin: string; amount_cents: string }>(
        'select origin, amount_cents::text from received_pix where end_to_end_id = $1',
        [endToEndId],
      )
    ).rows;

  async function assertMoneyKept() {
    await assertBalanceMatchesLines(db(), svc.demo.accountId, (await call('GET', '/v2/gn/saldo')).body.saldo);
    await assertLedgerBalanced(db());
  }

  /** An immediate Open Finance Pix of `valor`, authorised at the page; answers it once settled. */
  async function immediate(valor: string) {
    const started = await call('POST', '/v1/pagamentos/pix', {
      pagador: { idParticipante, cpf: PAYER_CPF },
      pagamento: { valor, infoPagador: 'Pedido 7' },
    });
    assert.equal(started.status, 200, started.text);
    await consentAt(svc, started.body.redirectURI);
    return waitFor(async () => {
      const list = await call(
        'GET',
        `/v1/pagamentos/pix?${period()}&identificador=${encodeURIComponent(started.body.identificadorPagamento)}`,
      );
      const payment = list.body.pagamentos[0];
      return payment?.status !== 'pendente' && payment;
    }, 'the payment settled');
  }

  it('a paid payment is a pacs.008 (INIC) from the payer’s institution, claimed and answered ACSP', async () => {
    const before = await saldoCents();
    const paid = await immediate('3.00');
    assert.equal(paid.status, 'aceito', JSON.stringify(paid));
    const [claim, ...more] = await claims(paid.endToEndId);
    assert.equal(more.length, 0);
    assert.match(claim.msg_id, new RegExp(`^M${paid.endToEndId.slice(1, 9)}`), "the MsgId of the e2e id's ISPB");
    const answer = parseSpiMessage(claim.answer!);
    assert.equal(answer.kind === 'pacs.002' && answer.status, 'ACSP');
    assert.deepEqual(await received(paid.endToEndId), [{ origin: 'spi', amount_cents: '300' }]);
    const view = await call('GET', `/v2/pix/${paid.endToEndId}`);
    assert.equal(view.status, 200, view.text);
    assert.equal(view.body.valor, '3.00');
    assert.equal(view.body.infoPagador, 'Pedido 7');
    assert.equal(await saldoCents(), before + 300);
    // The message the payer's institution sends for such a payment, as pixd's inbound path reads it.
    const sent = parseSpiMessage(
      initiatedCreditTransfer(
        {
          endToEndId: paid.endToEndId,
          amountCents: 300,
          conta,
          payer: { nome: 'Pagador', cpf: PAYER_CPF },
          infoPagador: 'Pedido 7',
        },
        new Date(),
      ),
    );
    assert.ok(sent.kind === 'pacs.008');
    assert.equal(sent.initiation, 'INIC');
    assert.equal(sent.debtor.ispb, paid.endToEndId.slice(1, 9));
    assert.deepEqual([sent.creditor.conta, sent.endToEndId], [conta, paid.endToEndId]);
    await assertMoneyKept();
  });

  it('refused by the receiving account’s settings: rejeitado in the engine’s words, RJCT, nothing credited', async () => {
    const closed = await call('PUT', '/v2/gn/config', { pix: { receberSemChave: false } });
    assert.equal(closed.status, 201, closed.text);
    try {
      const before = await saldoCents();
      const refused = await immediate('2.00');
      assert.equal(refused.status, 'rejeitado');
      assert.equal(refused.motivo, 'A conta recebedora só aceita Pix por chave (receberSemChave: false).');
      const [claim] = await claims(refused.endToEndId);
      const answer = parseSpiMessage(claim.answer!);
      assert.equal(answer.kind === 'pacs.002' && answer.status, 'RJCT');
      assert.deepEqual(await received(refused.endToEndId), []);
      assert.equal(await saldoCents(), before);
      // Above 10.00 the payer's institution refuses before sending anything.
      const big = await immediate('10.01');
      assert.equal(big.status, 'rejeitado');
      assert.match(big.motivo, /sandbox: valores acima de 10.00 são recusados/);
      assert.deepEqual(await claims(big.endToEndId), []);
    } finally {
      const open = await call('PUT', '/v2/gn/config', { pix: { receberSemChave: true } });
      assert.equal(open.status, 201, open.text);
    }
    await assertMoneyKept();
  });

  it('a settlement that died after the credit, then ran twice at once: credited once, aceito once', async () => {
    const started = await call('POST', '/v1/pagamentos-agendados/pix', {
      pagador: { idParticipante, cpf: PAYER_CPF },
      pagamento: { valor: '4.00', dataAgendamento: dateIn(svc, 3) },
    });
    assert.equal(started.status, 200, started.text);
    await consentAt(svc, started.body.redirectURI);
    const { rows } = await db().query<{ id: string; end_to_end_id: string }>(
      `select p.id::text, p.end_to_end_id from of_pix_parcels p join of_pix_payments m on m.id = p.payment_id
        where m.identificador = $1`,
      [started.body.identificadorPagamento],
    );
    const [{ id, end_to_end_id: endToEndId }] = rows;
    const job = { payload: { parcelId: Number(id) } } as OutboxJob<{ parcelId: number }>;
    const ctx = svc.service.ctx;
    const settle = PARCEL_SETTLE_TOPIC.handler(ctx);
    const before = await saldoCents();

    // Its date's job, run early by hand, dies right after the payer's institution paid.
    const payer = ctx.payerInstitution;
    ctx.payerInstitution = {
      ...payer,
      openFinancePaymentDue: async (...args) => {
        assert.deepEqual(await payer.openFinancePaymentDue(...args), { paid: true });
        throw new Error('the node stopped');
      },
    };
    try {
      await assert.rejects(settle(job), /the node stopped/);
    } finally {
      ctx.payerInstitution = payer;
    }
    assert.equal(await saldoCents(), before + 400, 'credited');
    const identificador = encodeURIComponent(started.body.identificadorPagamento);
    const statusOf = async () =>
      (await call('GET', `/v1/pagamentos-agendados/pix?${period()}&identificador=${identificador}`)).body.pagamentos[0]
        .status;
    assert.equal(await statusOf(), 'agendado', 'not moved yet');
    // Asked of the payer's institution: no longer cancelled (the Pix may be, and here is, credited).
    const cancel = await call('PATCH', `/v1/pagamentos-agendados/pix/${identificador}/cancelar`);
    assert.equal(cancel.status, 422, cancel.text);
    assert.equal(cancel.body.nome, 'pagamento_nao_cancelavel');
    assert.match(cancel.body.mensagem, /já foi pedido à instituição do pagador/);

    // Run again, twice at once: each asks with the same end-to-end id and gets the first answer.
    await Promise.all([settle(job), settle(job)]);
    assert.equal(await statusOf(), 'aceito');
    assert.equal((await claims(endToEndId)).length, 1, 'one claim of the end-to-end id');
    assert.deepEqual(await received(endToEndId), [{ origin: 'spi', amount_cents: '400' }]);
    assert.equal(await saldoCents(), before + 400, 'credited once');
    // Its date comes: the outbox's own run finds it settled.
    await call('POST', '/sandbox/clock/advance', { segundos: 4 * 86_400 });
    await settle(job);
    assert.equal(await saldoCents(), before + 400);
    await assertMoneyKept();
  });
});
