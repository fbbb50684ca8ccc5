/**
 * Sending Pix (issue 14, items 1-3, 5, 8, 9): by key and by bank data, idempotent idEnvio, the hold, the
 * asynchronous outcome by the sandbox amount rules, the payer key's webhook, reads of sent Pix, transfers
 * between accounts of this pixd, and 50 concurrent sends against a balance that covers 10. Real HTTPS,
 * real local webhook receiver; every scenario ends with the ledger's invariants.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { waitFor, wallWindowPassed } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { ledgerCode } from '../../src/platform/ledger/ledger.ts';
import { WEBHOOK_LOOKUP_SHARED_MS } from '../../src/pix/webhook/events.ts';

const EXTERNAL_KEY = 'fornecedor@example.com';
let sequence = 0;
const newIdEnvio = (tag: string) => `${tag}${Date.now().toString(36)}${sequence++}`.replace(/[^a-zA-Z0-9]/g, '');

describe('sending Pix (PUT /v2/gn/pix/:idEnvio)', () => {
  let svc: TestService;
  let receiver: Receiver;
  let payer: Party;
  let payee: Party;
  let other: Party;
  let payerApi: WebhookApi;
  let payeeApi: WebhookApi;
  let otherApi: WebhookApi;

  const send = (api: WebhookApi, idEnvio: string, body: unknown, version = 'v2') =>
    api.call('PUT', `/${version}/gn/pix/${idEnvio}`, body);
  const saldo = async (api: WebhookApi) => (await api.call('GET', '/v2/gn/saldo/')).body.saldo as string;
  const byKey = (party: Party, valor: string, chave = EXTERNAL_KEY, extra: Record<string, unknown> = {}) => ({
    valor,
    pagador: { chave: party.chaves[0], ...extra },
    favorecido: { chave },
  });
  const readSent = async (api: WebhookApi, idEnvio: string) => {
    const res = await api.call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const settled = (api: WebhookApi, idEnvio: string) =>
    waitFor(async () => {
      const read = await readSent(api, idEnvio);
      return read.status !== 'EM_PROCESSAMENTO' && read;
    }, `send ${idEnvio} settled`);
  const fund = async (party: Party, api: WebhookApi, valor: string) => {
    const res = await api.call('POST', '/sandbox/pix/pay', { chave: party.chaves[0], valor });
    assert.equal(res.status, 201, res.text);
  };
  const holder = async (party: Party) =>
    (
      await svc.service.ctx.db.query<{ documento: string; conta: string; nome: string }>(
        'select documento, conta, nome from accounts where id = $1',
        [party.accountId],
      )
    ).rows[0];

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    payer = await svc.newParty({ nome: 'Pagadora Ltda' });
    payee = await svc.newParty({ nome: 'Recebedora Ltda' });
    other = await svc.newParty();
    payerApi = webhookApi(payer);
    payeeApi = webhookApi(payee);
    otherApi = webhookApi(other);
    await payerApi.registerPix(`${receiver.url}/payer`);
    await payeeApi.registerPix(`${receiver.url}/payee`);
    await fund(payer, payerApi, '100.00');
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it('refuses bad input and unmet conditions with 4xx named errors, never 5xx, holding nothing', async () => {
    const cases: [string, unknown, number, string][] = [
      ['zero', byKey(payer, '0.00'), 400, 'valor_invalido'],
      ['negative', byKey(payer, '-1'), 400, 'json_invalido'],
      ['exponent', byKey(payer, '1e3'), 400, 'json_invalido'],
      ['number', { ...byKey(payer, '1.00'), valor: 1e3 }, 400, 'json_invalido'],
      ['malformed key', byKey(payer, '1.00', 'not a key'), 400, 'chave_invalida'],
      ['own key', byKey(payer, '1.00', payer.chaves[0]), 400, 'chave_propria'],
      [
        'payer key of another account',
        { ...byKey(payer, '1.00'), pagador: { chave: payee.chaves[0] } },
        400,
        'chave_pagador_invalida',
      ],
      [
        'no receiver',
        { valor: '1.00', pagador: { chave: payer.chaves[0] }, favorecido: {} },
        400,
        'favorecido_invalido',
      ],
      ['above 20.00 to another institution (sandbox)', byKey(payer, '20.01'), 400, 'envio_recusado'],
      ['more than the balance', byKey(payer, '100.01', payee.chaves[0]), 400, 'saldo_insuficiente'],
      [
        'wrong document for the key',
        { ...byKey(payer, '1.00', payee.chaves[0]), favorecido: { chave: payee.chaves[0], cpf: '12345678909' } },
        400,
        'documento_divergente',
      ],
    ];
    for (const [what, body, status, nome] of cases) {
      const res = await send(payerApi, newIdEnvio('bad'), body);
      assert.equal(res.status, status, `${what}: ${res.text}`);
      assert.equal(res.body.nome, nome, `${what}: ${res.text}`);
      assert.equal(typeof res.body.mensagem, 'string');
    }
    // A payer key with no Pix webhook: the outcome would have nowhere to go.
    await fund(other, otherApi, '5.00');
    const noWebhook = await send(otherApi, newIdEnvio('nowh'), byKey(other, '1.00'));
    assert.equal(noWebhook.status, 400, noWebhook.text);
    assert.equal(noWebhook.body.nome, 'webhook_nao_cadastrado');
    const badId = await send(payerApi, 'id-with-dash', byKey(payer, '1.00'));
    assert.equal(badId.status, 400, badId.text);
    assert.equal(await saldo(payerApi), '100.00', 'nothing was held');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('0.01-10.00 to another institution: 201 EM_PROCESSAMENTO, held, then REALIZADO via the payer key webhook; idempotent idEnvio', async () => {
    const idEnvio = newIdEnvio('ok');
    const body = byKey(payer, '5.00', EXTERNAL_KEY, { infoPagador: 'Fatura 12' });
    const res = await send(payerApi, idEnvio, body, 'v3');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.idEnvio, idEnvio);
    assert.match(res.body.e2eId, /^E99999008\d{12}[A-Z0-9]{11}$/);
    assert.equal(res.body.valor, '5.00');
    assert.equal(res.body.status, 'EM_PROCESSAMENTO');
    assert.ok(res.body.horario.solicitacao);
    assert.equal(await saldo(payerApi), '95.00', 'held at once');

    const [call] = await receiver.waitForCalls(1, '/payer/pix');
    const pix = call.body.pix[0];
    assert.equal(pix.endToEndId, res.body.e2eId);
    assert.equal(pix.status, 'REALIZADO');
    assert.equal(pix.chave, payer.chaves[0]);
    assert.equal(pix.valor, '5.00');
    assert.equal(pix.gnExtras.idEnvio, idEnvio);
    assert.equal(pix.gnExtras.favorecido.chave, EXTERNAL_KEY, 'envio.webhook.notificacao.favorecido defaults to true');

    const read = await settled(payerApi, idEnvio);
    assert.equal(read.status, 'REALIZADO');
    assert.equal(read.endToEndId, res.body.e2eId);
    assert.equal(read.chave, payer.chaves[0]);
    assert.equal(read.infoPagador, 'Fatura 12');
    assert.ok(Date.parse(read.horario.liquidacao) >= Date.parse(read.horario.solicitacao));
    assert.equal(read.favorecido.chave, EXTERNAL_KEY);
    assert.equal(read.favorecido.identificacao.cpf, '***.456.789-**', 'masked as the standard shows');
    assert.deepEqual((await payerApi.call('GET', `/v2/gn/pix/enviados/${res.body.e2eId}`)).body, read);

    // Same id, same body: the same send (no second hold); another body: 409.
    const again = await send(payerApi, idEnvio, body);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.e2eId, res.body.e2eId);
    const conflict = await send(payerApi, idEnvio, byKey(payer, '6.00'));
    assert.equal(conflict.status, 409, conflict.text);
    assert.equal(conflict.body.nome, 'id_envio_duplicado');
    assert.equal(await saldo(payerApi), '95.00');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('10.01-20.00 to another institution: NAO_REALIZADO via the webhook, with motivo, and the hold released', async () => {
    const before = receiver.callsTo('/payer/pix').length;
    const idEnvio = newIdEnvio('no');
    const res = await send(payerApi, idEnvio, byKey(payer, '15.00'));
    assert.equal(res.status, 201, res.text);
    const read = await settled(payerApi, idEnvio);
    assert.equal(read.status, 'NAO_REALIZADO');
    assert.ok(read.motivo);
    assert.equal(read.horario.liquidacao, undefined);
    const calls = await receiver.waitForCalls(before + 1, '/payer/pix');
    const pix = calls.at(-1)!.body.pix[0];
    assert.equal(pix.status, 'NAO_REALIZADO');
    assert.equal(pix.gnExtras.idEnvio, idEnvio);
    assert.equal(pix.gnExtras.erro.motivo, read.motivo);
    assert.equal(await saldo(payerApi), '95.00', 'the hold came back');
    await assertBalanceMatchesLines(svc.service.ctx.db, payer.accountId, await saldo(payerApi));
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('to a key of another pixd account: one settlement debits the payer and credits the receiver, who sees a received Pix and its webhook', async () => {
    const config = await payeeApi.call('PUT', '/v2/gn/config', {
      pix: {
        receberSemChave: true,
        chaves: {
          [payee.chaves[0]]: {
            recebimento: {
              txidObrigatorio: false,
              qrCodeEstatico: { recusarTodos: false },
              webhook: { notificacao: { tarifa: false, pagador: true }, notificar: { pixSemTxid: true } },
            },
          },
        },
      },
    });
    assert.equal(config.status, 201, config.text);
    const payerHolder = await holder(payer);
    const payeeHolder = await holder(payee);
    const idEnvio = newIdEnvio('int');
    // 30.00: above the sandbox's 20.00, which simulates other institutions only.
    const res = await send(payerApi, idEnvio, byKey(payer, '30.00', payee.chaves[0], { infoPagador: 'Aluguel' }));
    assert.equal(res.status, 201, res.text);
    const read = await settled(payerApi, idEnvio);
    assert.equal(read.status, 'REALIZADO');
    assert.equal(read.favorecido.identificacao.nome, 'Recebedora Ltda');
    assert.equal(await saldo(payerApi), '65.00');
    assert.equal(await saldo(payeeApi), '30.00');

    const received = await payeeApi.call('GET', `/v2/pix/${res.body.e2eId}`);
    assert.equal(received.status, 200, received.text);
    assert.equal(received.body.endToEndId, res.body.e2eId);
    assert.equal(received.body.valor, '30.00');
    assert.equal(received.body.chave, payee.chaves[0]);
    assert.equal(received.body.infoPagador, 'Aluguel');
    assert.equal(received.body.pagador.nome, payerHolder.nome);
    assert.equal(received.body.pagador.cnpj ?? received.body.pagador.cpf, payerHolder.documento);
    const [toPayee] = await receiver.waitForCalls(1, '/payee/pix');
    assert.equal(toPayee.body.pix[0].endToEndId, res.body.e2eId);
    assert.equal(toPayee.body.pix[0].pagador.nome, payerHolder.nome);

    // By bank data, to the same account (our ISPB, its account number and document).
    const bankId = newIdEnvio('bank');
    const doc = payeeHolder.documento.length === 11 ? { cpf: payeeHolder.documento } : { cnpj: payeeHolder.documento };
    const bank = await send(payerApi, bankId, {
      valor: '2.50',
      pagador: { chave: payer.chaves[0] },
      favorecido: {
        contaBanco: {
          nome: 'Recebedora',
          ...doc,
          codigoBanco: '99999008',
          agencia: '0001',
          conta: payeeHolder.conta,
          tipoConta: 'cacc',
        },
      },
    });
    assert.equal(bank.status, 201, bank.text);
    assert.equal((await settled(payerApi, bankId)).status, 'REALIZADO');
    assert.equal(await saldo(payerApi), '62.50');
    assert.equal(await saldo(payeeApi), '32.50');
    const unknownAccount = await send(payerApi, newIdEnvio('bank'), {
      valor: '1.00',
      pagador: { chave: payer.chaves[0] },
      favorecido: {
        contaBanco: { nome: 'X', ...doc, codigoBanco: '99999008', agencia: '0001', conta: '1', tipoConta: 'cacc' },
      },
    });
    assert.equal(unknownAccount.status, 400, unknownAccount.text);
    assert.equal(unknownAccount.body.nome, 'conta_inexistente');

    // A refund the receiver sends back reaches the paying account, as a payer's PSP would credit it.
    const refund = await payeeApi.call('PUT', `/v2/pix/${res.body.e2eId}/devolucao/d1`, { valor: '10.00' });
    assert.equal(refund.status, 201, refund.text);
    await waitFor(
      async () => (await payeeApi.call('GET', `/v2/pix/${res.body.e2eId}/devolucao/d1`)).body.status === 'DEVOLVIDO',
      'refund settled',
    );
    assert.equal(await saldo(payerApi), '72.50');
    assert.equal(await saldo(payeeApi), '22.50');
    const db = svc.service.ctx.db;
    await assertBalanceMatchesLines(db, payer.accountId, await saldo(payerApi));
    await assertBalanceMatchesLines(db, payee.accountId, await saldo(payeeApi));
    await assertLedgerBalanced(db);
  });

  it('reads: another account gets 404; the list pages and filters by status', async () => {
    const first = await readSent(
      payerApi,
      (await send(payerApi, newIdEnvio('list'), byKey(payer, '1.00'))).body.idEnvio,
    );
    const foreign = await payeeApi.call('GET', `/v2/gn/pix/enviados/id-envio/${first.idEnvio}`);
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal(foreign.body.type, 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado');
    assert.equal((await payeeApi.call('GET', `/v2/gn/pix/enviados/${first.endToEndId}`)).status, 404);
    await settled(payerApi, first.idEnvio);

    const inicio = new Date(svc.clock.nowMs() - 3_600_000).toISOString();
    const fim = new Date(svc.clock.nowMs() + 3_600_000).toISOString();
    const all = await payerApi.call('GET', `/v2/gn/pix/enviados?inicio=${inicio}&fim=${fim}`);
    assert.equal(all.status, 200, all.text);
    const total = all.body.parametros.paginacao.quantidadeTotalDeItens;
    assert.equal(total, all.body.pix.length);
    assert.ok(total >= 5, `${total} sends`);
    const refused = await payerApi.call('GET', `/v2/gn/pix/enviados?inicio=${inicio}&fim=${fim}&status=NAO_REALIZADO`);
    assert.ok(refused.body.pix.length >= 1);
    assert.ok(refused.body.pix.every((p: { status: string }) => p.status === 'NAO_REALIZADO'));
    const page = await payerApi.call(
      'GET',
      `/v2/gn/pix/enviados?inicio=${inicio}&fim=${fim}&paginacao.itensPorPagina=2&paginacao.paginaAtual=1`,
    );
    assert.equal(page.body.pix.length, 2);
    assert.equal(page.body.parametros.paginacao.quantidadeDePaginas, Math.ceil(total / 2));
    assert.deepEqual(page.body.pix[0], all.body.pix[2]);
    const backwards = await payerApi.call('GET', `/v2/gn/pix/enviados?inicio=${fim}&fim=${inicio}`);
    assert.equal(backwards.status, 400, backwards.text);
  });

  it("the payer key's envio.webhook.notificacao shapes the outcome callback: fee shown, receiver hidden, idEnvio always", async () => {
    const config = await payerApi.call('PUT', '/v2/gn/config', {
      pix: {
        receberSemChave: true,
        chaves: {
          [payer.chaves[0]]: {
            recebimento: { txidObrigatorio: false, qrCodeEstatico: { recusarTodos: false } },
            envio: { webhook: { notificacao: { tarifa: true, favorecido: false } } },
          },
        },
      },
    });
    assert.equal(config.status, 201, config.text);
    // Deliveries share a key's settings for WEBHOOK_LOOKUP_SHARED_MS: let the last lookup lapse.
    await wallWindowPassed(Date.now(), WEBHOOK_LOOKUP_SHARED_MS);
    const idEnvio = newIdEnvio('cfg');
    assert.equal((await send(payerApi, idEnvio, byKey(payer, '1.00'))).status, 201);
    const call = await waitFor(
      async () => receiver.callsTo('/payer/pix').find((c) => c.body.pix[0].gnExtras?.idEnvio === idEnvio),
      'the outcome callback',
    );
    assert.deepEqual(call.body.pix[0].gnExtras, { idEnvio, tarifa: '0.00' });
    assert.equal(call.body.pix[0].status, 'REALIZADO');
  });

  it('50 concurrent sends from an account whose balance covers 10: exactly 10 succeed, the balance never goes below zero', async () => {
    const party = await svc.newParty();
    const api = webhookApi(party);
    await api.registerPix(`${receiver.url}/burst`);
    await fund(party, api, '10.00');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send(api, `burst${i}x${Date.now().toString(36)}`, byKey(party, '1.00'))),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    assert.equal(created.length, 10, results.map((r) => r.status).join(','));
    assert.ok(
      refused.every((r) => r.status === 400 && r.body.nome === 'saldo_insuficiente'),
      refused.map((r) => `${r.status} ${r.text}`).join('\n'),
    );
    assert.equal(await saldo(api), '0.00');
    await receiver.waitForCalls(10, '/burst/pix');
    const db = svc.service.ctx.db;
    const sending = await db.query<{ balance_cents: number }>(
      'select balance_cents from ledger_accounts where code = $1',
      [ledgerCode.sending(party.accountId)],
    );
    assert.equal(sending.rows[0].balance_cents, 0, 'every hold settled');
    const negative = await db.query('select code from ledger_accounts where balance_cents < 0');
    assert.equal(negative.rows.length, 0);
    await assertBalanceMatchesLines(db, party.accountId, await saldo(api));
    await assertLedgerBalanced(db);
  });
});
