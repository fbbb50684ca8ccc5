/**
 * Open Finance Pix payments through the official SDK over HTTPS (the consent form posted as a browser posts
 * it; the pages in Chromium are pix-journey.test.ts's): immediate, scheduled, recurring and biometric
 * payments authorised at the payer's institution, settled on the account's clock as received Pix through the
 * payment engine (balance and GET /v2/pix agree, the ledger balances), refunds, cancellation, parcel
 * replacement, the sandbox's refusal above 10.00, biometric limits and revocation, and the callbacks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS } from '../../src/platform/limits.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import type { EfiPay } from '../compat/efipay.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { Receiver } from '../helpers/receiver.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import { waitFor } from '../helpers/wait.ts';
import { PAYER_CPF, consentAt, dateIn } from './helpers.ts';

type SdkError = { nome: string; mensagem: string };
const named = (nome: string, mensagem?: RegExp) => (error: SdkError) =>
  error.nome === nome && (mensagem === undefined || mensagem.test(error.mensagem));

describe('Open Finance Pix payments: immediate, scheduled, recurring, biometric', () => {
  let svc: TestService;
  let sandbox: Call;
  let receiver: Receiver;
  let restore: () => void;
  let efi: EfiPay;
  let idParticipante: string;

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    sandbox = callerWithFreshToken(svc.demo);
    efi = sdkFor(svc);
    await efi.ofConfigUpdate({}, { redirectURL: 'https://app.example/retorno', webhookURL: `${receiver.url}/of` });
    idParticipante = (await efi.ofListParticipants({})).participantes[0].identificador;
  });
  after(async () => {
    restore?.();
    await receiver?.close();
    await svc?.close();
  });

  const pagador = () => ({ idParticipante, cpf: PAYER_CPF });
  const period = () => ({ inicio: dateIn(svc, -10), fim: dateIn(svc, 0) });
  const saldoCents = async () => Math.round(Number((await efi.getAccountBalance()).saldo) * 100);

  const consent = (redirectURI: string, decisao: 'autorizar' | 'recusar' = 'autorizar') =>
    consentAt(svc, redirectURI, decisao);

  async function advanceTo(date: string) {
    const now = Date.parse((await sandbox('GET', '/sandbox/clock')).body.agora);
    const moved = await sandbox('POST', '/sandbox/clock/advance', {
      segundos: Math.ceil((Date.parse(`${date}T03:00:00Z`) - now) / 1000) + 60,
    });
    assert.equal(moved.status, 200, moved.text);
  }

  /** pixd answers the refund's id (its rtrId), which the SDK's typing of the answer leaves out. */
  const rtrIdOf = (answer: object) => (answer as { identificadorDevolucao: string }).identificadorDevolucao;
  const callback = (match: (body: Record<string, unknown>) => boolean) =>
    waitFor(async () => receiver.callsTo('/of').find((c) => match(c.body as Record<string, unknown>)), 'the callback');

  it('immediate: authorised at the page → aceito, credited as a received Pix; refund; above 10.00 and declined are rejeitado', async () => {
    const before = await saldoCents();
    const started = await efi.ofStartPixPayment(
      {},
      { pagador: pagador(), pagamento: { valor: '9.90', infoPagador: 'Pedido 42', idProprio: 'pedido-42' } },
    );
    assert.match(started.identificadorPagamento, /^urn:pixd:/);
    assert.ok(started.redirectURI.startsWith(svc.service.ctx.pages.url), 'on the pages listener');
    const query = await consent(started.redirectURI);
    assert.equal(query.get('identificadorPagamento'), started.identificadorPagamento);

    const paid = await waitFor(async () => {
      const list = await efi.ofListPixPayment({ ...period(), identificador: started.identificadorPagamento });
      return list.pagamentos[0]?.status === 'aceito' && list.pagamentos[0];
    }, 'aceito');
    assert.match(paid.endToEndId!, /^E99999011/, "the payer institution's ISPB");
    assert.equal(paid.idProprio, 'pedido-42');
    assert.equal(await saldoCents(), before + 990);
    assert.equal((await efi.pixDetailReceived({ e2eId: paid.endToEndId! })).valor, '9.90');
    const hook = await callback(
      (b) => b.identificadorPagamento === started.identificadorPagamento && b.status === 'aceito',
    );
    assert.equal((hook.body as { endToEndId: string }).endToEndId, paid.endToEndId);

    const refund = await efi.ofDevolutionPix(
      { identificadorPagamento: started.identificadorPagamento },
      { valor: '2.00' },
    );
    assert.equal(refund.status, 'pendente');
    assert.equal(refund.endToEndId, paid.endToEndId);
    await waitFor(async () => {
      const list = await efi.ofListPixPayment({ ...period(), identificador: started.identificadorPagamento });
      return list.pagamentos[0].devolucoes?.[0]?.status === 'aceito';
    }, 'the refund settled');
    assert.equal(await saldoCents(), before + 790);
    // Its request and its outcome are both callbacks, to the same webhookURL (a mutual-TLS receiver).
    const refundCallbacks = (status: string) =>
      callback((b) => b.tipo === 'devolucao' && b.identificadorDevolucao === rtrIdOf(refund) && b.status === status);
    await refundCallbacks('pendente');
    const accepted = (await refundCallbacks('aceito')).body as Record<string, unknown>;
    assert.deepEqual(
      { ...accepted, data: undefined },
      {
        tipo: 'devolucao',
        identificadorPagamento: started.identificadorPagamento,
        endToEndId: paid.endToEndId,
        identificadorDevolucao: rtrIdOf(refund),
        valor: '2.00',
        status: 'aceito',
        data: undefined,
      },
    );

    // A refund the engine refuses (the sandbox's refund fault): rejeitado with its motivo, no money moves. The
    // family's retries carry it: the first delivery attempt fails (the sandbox's webhook fault), and the retry a
    // minute later on the account's clock delivers the request's callback, then the outcome's, in that order.
    for (const [kind, body] of [
      ['devolucao', { motivo: 'Conta do pagador encerrada.', vezes: 1 }],
      ['webhook', { status: 503, vezes: 1 }],
    ] as const) {
      const fault = await sandbox('PUT', `/sandbox/falhas/${kind}`, body);
      assert.equal(fault.status, 200, fault.text);
    }
    const refusedRefund = await efi.ofDevolutionPix(
      { identificadorPagamento: started.identificadorPagamento },
      { valor: '1.00' },
    );
    const callsOfRefused = () =>
      receiver
        .callsTo('/of')
        .filter((c) => (c.body as Record<string, unknown>).identificadorDevolucao === rtrIdOf(refusedRefund));
    await waitFor(async () => {
      const { entregas } = (await sandbox('GET', '/sandbox/webhooks/entregas?topico=webhook.openfinance')).body as {
        entregas: { assunto: string | null; tentativas: { statusHttp: number | null }[] }[];
      };
      return entregas.some((e) => e.assunto === paid.endToEndId && e.tentativas.some((t) => t.statusHttp === 503));
    }, 'the first attempt, failed');
    assert.equal(callsOfRefused().length, 0, 'a failed attempt sends nothing, and the outcome waits behind it');
    const moved = await sandbox('POST', '/sandbox/clock/advance', { segundos: 61 });
    assert.equal(moved.status, 200, moved.text);
    const rejected = (
      await callback((b) => b.identificadorDevolucao === rtrIdOf(refusedRefund) && b.status === 'rejeitado')
    ).body as Record<string, unknown>;
    assert.deepEqual(
      callsOfRefused().map((c) => (c.body as Record<string, unknown>).status),
      ['pendente', 'rejeitado'],
    );
    assert.equal(rejected.motivo, 'Conta do pagador encerrada.');
    assert.equal(rejected.valor, '1.00');
    const listed = await efi.ofListPixPayment({ ...period(), identificador: started.identificadorPagamento });
    assert.deepEqual(
      listed.pagamentos[0].devolucoes?.map((d) => d.status),
      ['aceito', 'rejeitado'],
    );
    assert.equal(await saldoCents(), before + 790, 'a rejected refund moves no money');
    await assertBalanceMatchesLines(svc.service.ctx.db, svc.demo.accountId, (await efi.getAccountBalance()).saldo);
    await assert.rejects(
      efi.ofDevolutionPix({ identificadorPagamento: started.identificadorPagamento }, { valor: '8.00' }),
      named('PixDevolucaoInvalida', /excede/),
    );

    const big = await efi.ofStartPixPayment({}, { pagador: pagador(), pagamento: { valor: '10.01' } });
    await consent(big.redirectURI);
    const declined = await efi.ofStartPixPayment({}, { pagador: pagador(), pagamento: { valor: '1.00' } });
    assert.equal((await consent(declined.redirectURI, 'recusar')).get('status'), 'rejeitado');
    const refused = await waitFor(async () => {
      const list = await efi.ofListPixPayment({ ...period(), status: 'rejeitado' });
      return list.pagamentos.length === 2 && list;
    }, 'both rejeitado');
    // `motivo` is pixd's addition to the SDK's shape: why it was refused.
    const motivos = refused.pagamentos.map((p) => (p as { motivo?: string }).motivo);
    assert.match(motivos[0]!, /acima de 10.00/);
    assert.match(motivos[1]!, /Recusada pelo pagador/);
    await assert.rejects(
      efi.ofDevolutionPix({ identificadorPagamento: declined.identificadorPagamento }, { valor: '1.00' }),
      named('pagamento_nao_devolvivel'),
    );
    await assert.rejects(
      efi.ofStartPixPayment(
        {},
        { pagador: { idParticipante: 'nenhum', cpf: PAYER_CPF }, pagamento: { valor: '1.00' } },
      ),
      named('pagamento_invalido', /pagador.idParticipante/),
    );
    assert.equal(await saldoCents(), before + 790, 'nothing refused moved money');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('scheduled and recurring: settle on their dates on the account clock; cancel, replace a parcel, refund', async () => {
    const before = await saldoCents();
    const today = dateIn(svc, 0);
    await assert.rejects(
      efi.ofStartSchedulePixPayment({}, { pagador: pagador(), pagamento: { valor: '1.00', dataAgendamento: today } }),
      named('pagamento_invalido', /dataAgendamento/),
    );
    const scheduled = await efi.ofStartSchedulePixPayment(
      {},
      { pagador: pagador(), pagamento: { valor: '4.00', dataAgendamento: dateIn(svc, 1) } },
    );
    await consent(scheduled.redirectURI);
    const dropped = await efi.ofStartSchedulePixPayment(
      {},
      { pagador: pagador(), pagamento: { valor: '3.00', dataAgendamento: dateIn(svc, 1) } },
    );
    await consent(dropped.redirectURI);
    const cancelled = await efi.ofCancelSchedulePix({ identificadorPagamento: dropped.identificadorPagamento });
    assert.equal(cancelled.status, 'cancelado');
    const listed = await efi.ofListSchedulePixPayment({ ...period(), identificador: scheduled.identificadorPagamento });
    assert.equal(listed.pagamentos[0].status, 'agendado');
    assert.equal(listed.pagamentos[0].dataOperacao, dateIn(svc, 1));

    const recurring = await efi.ofStartRecurrencyPixPayment(
      {},
      {
        pagador: pagador(),
        pagamento: { valor: '5.00', recorrencia: { tipo: 'diaria', dataInicio: dateIn(svc, 1), quantidade: 3 } },
      },
    );
    await consent(recurring.redirectURI);
    const id = recurring.identificadorPagamento;
    const parcels = (await efi.ofListRecurrencyPixPayment({ ...period(), identificador: id })).pagamentos[0]
      .recorrencias;
    assert.deepEqual(
      parcels.map((p) => [p.dataOperacao, p.status]),
      [1, 2, 3].map((d) => [dateIn(svc, d), 'agendado']),
    );
    const third = await efi.ofCancelRecurrencyPix({ identificadorPagamento: parcels[2].endToEndId });
    assert.equal(third.status, 'cancelado');
    const replaced = await efi.ofReplaceRecurrencyPixParcel(
      { identificadorPagamento: id, endToEndId: parcels[1].endToEndId },
      { valor: '6.00' },
    );
    await consent(replaced.redirectURI);
    const whole = await efi.ofStartRecurrencyPixPayment(
      {},
      {
        pagador: pagador(),
        pagamento: {
          valor: '2.00',
          recorrencia: { tipo: 'personalizada', datas: [dateIn(svc, 2), dateIn(svc, 1)] },
        },
      },
    );
    await consent(whole.redirectURI);
    assert.equal(
      (await efi.ofCancelRecurrencyPix({ identificadorPagamento: whole.identificadorPagamento })).status,
      'cancelado',
    );
    const unused = await efi.ofStartPixPayment({}, { pagador: pagador(), pagamento: { valor: '1.00' } });

    await advanceTo(dateIn(svc, 2));
    const done = await waitFor(async () => {
      const [r] = (await efi.ofListRecurrencyPixPayment({ ...period(), identificador: id })).pagamentos;
      return r.status === 'concluido' && r;
    }, 'the recurrence concluded');
    assert.deepEqual(
      done.recorrencias.map((p) => p.status),
      ['aceito', 'substituido', 'cancelado'],
    );
    const replacement = await waitFor(async () => {
      const list = await efi.ofListRecurrencyPixPayment({
        ...period(),
        identificador: replaced.identificadorPagamento,
      });
      return list.pagamentos[0].status === 'concluido' && list.pagamentos[0];
    }, 'the replacement paid');
    assert.equal((replacement.recorrencias[0] as { valor?: string }).valor, '6.00');
    const paidScheduled = await waitFor(async () => {
      const list = await efi.ofListSchedulePixPayment({ ...period(), identificador: scheduled.identificadorPagamento });
      return list.pagamentos[0].status === 'aceito' && list.pagamentos[0];
    }, 'the scheduled Pix paid');
    await assert.rejects(
      efi.ofCancelSchedulePix({ identificadorPagamento: scheduled.identificadorPagamento }),
      named('pagamento_nao_cancelavel'),
    );
    assert.equal(await saldoCents(), before + 400 + 500 + 600, 'nothing of the cancelled ones');
    const [wholeRead] = (
      await efi.ofListRecurrencyPixPayment({ ...period(), identificador: whole.identificadorPagamento })
    ).pagamentos;
    assert.deepEqual(
      [wholeRead.status, ...wholeRead.recorrencias.map((p) => p.status)],
      ['cancelado', 'cancelado', 'cancelado'],
    );
    const expired = await waitFor(async () => {
      const list = await efi.ofListPixPayment({ ...period(), identificador: unused.identificadorPagamento });
      return list.pagamentos[0].status === 'expirado' && list.pagamentos[0];
    }, 'the unused link expired');
    assert.match((expired as { motivo?: string }).motivo!, /expirou/);

    const refund = await efi.ofDevolutionSchedulePix(
      { identificadorPagamento: scheduled.identificadorPagamento },
      { endToEndId: paidScheduled.endToEndId!, valor: '4.00' },
    );
    assert.equal(refund.valor, '4.00');
    const refunds = await efi.ofDevolutionRecurrencyPix(
      { identificadorPagamento: id },
      { devolucoes: [{ endToEndId: done.recorrencias[0].endToEndId, valor: '1.50' }] },
    );
    assert.equal(refunds.length, 1);
    await waitFor(async () => (await saldoCents()) === before + 400 + 500 + 600 - 400 - 150, 'both refunds settled');
    await assertLedgerBalanced(svc.service.ctx.db);
    await assertBalanceMatchesLines(svc.service.ctx.db, svc.demo.accountId, (await efi.getAccountBalance()).saldo);
  });

  it('biometric: a link authorised once, payments without a page within its limits, revoked', async () => {
    const link = await efi.ofCreateBiometricEnrollment({}, { pagador: pagador() });
    assert.equal((await consent(link.redirectURI)).get('identificadorVinculo'), link.identificadorVinculo);
    const { vinculos } = await efi.ofListBiometricEnrollment({ cpf: PAYER_CPF }, {});
    assert.deepEqual(
      vinculos.map((v) => [v.identificador, v.limiteTransacao]),
      [[link.identificadorVinculo, (LIMITS.ofLinkTransactionLimitCents / 100).toFixed(2)]],
    );
    const before = await saldoCents();
    const account = (
      await svc.service.ctx.db.query<{ conta: string; documento: string; nome: string }>(
        'select conta, documento, nome from accounts where id = $1',
        [svc.demo.accountId],
      )
    ).rows[0];
    const favorecido = {
      contaBanco: { ...account, codigoBanco: '364', agencia: '0001', tipoConta: 'TRAN' as const },
    };
    const payment = await efi.ofCreateBiometricPixPayment(
      {},
      { identificadorVinculo: link.identificadorVinculo, favorecido, pagamento: { valor: '3.00' } },
    );
    assert.ok(
      payment.redirectURI.startsWith('https://app.example/retorno?'),
      'no page: straight back to the application',
    );
    await waitFor(async () => {
      const list = await efi.ofListBiometricPixPayment(
        { ...period(), identificador: payment.identificadorPagamento },
        {},
      );
      return list.vinculos[0]?.status === 'aceito';
    }, 'the biometric payment paid');
    assert.equal(await saldoCents(), before + 300);
    const over = (LIMITS.ofLinkTransactionLimitCents / 100 + 1).toFixed(2);
    await assert.rejects(
      efi.ofCreateBiometricPixPayment(
        {},
        { identificadorVinculo: link.identificadorVinculo, favorecido, pagamento: { valor: over } },
      ),
      named('pagamento_limite_excedido'),
    );
    const revoked = await efi.ofRevokeBiometricEnrollment(
      {},
      { identificadorVinculo: link.identificadorVinculo, motivo: 'Cliente encerrou o cadastro' },
    );
    assert.equal(revoked.status, 'revogado');
    await callback((b) => b.identificadorVinculo === link.identificadorVinculo && b.status === 'revogado');
    await assert.rejects(
      efi.ofCreateBiometricPixPayment(
        {},
        { identificadorVinculo: link.identificadorVinculo, favorecido, pagamento: { valor: '1.00' } },
      ),
      named('vinculo_nao_autorizado', /revogado/),
    );
    assert.equal((await efi.ofListBiometricEnrollment({ cpf: PAYER_CPF }, {})).vinculos.length, 0);
    await assertLedgerBalanced(svc.service.ctx.db);
  });
});
