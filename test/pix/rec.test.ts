import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Receiver } from '../helpers/receiver.ts';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { recBody } from './rec-fixtures.ts';

const RANGE = 'inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z';

describe('recurrences (rec)', () => {
  let svc: TestService;
  let receiver: Receiver;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => svc.demo.http.request(method, path, { token, body });
  const newRec = async (extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/v2/rec', recBody(extra));
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const expectInvalid = (
    res: { status: number; body: any; text: string },
    property: string,
    type = 'RecOperacaoInvalida',
  ) => {
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.type, new RegExp(`/${type}$`));
    assert.equal(res.body.violacoes?.[0]?.propriedade, property, res.text);
  };

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    token = await svc.demo.token();
    const put = await call('PUT', '/v2/webhookrec', { webhookUrl: `${receiver.url}/auto` });
    assert.equal(put.status, 200, put.text);
  });
  after(async () => {
    await receiver.close();
    await svc.close();
  });

  it('creates a recurrence in the standard shape, CRIADA, and notifies /rec', async () => {
    const rec = await newRec();
    assert.match(rec.idRec, /^RN99999008\d{8}[a-zA-Z0-9]{11}$/);
    assert.equal(rec.status, 'CRIADA');
    assert.equal(rec.politicaRetentativa, 'NAO_PERMITE');
    assert.deepEqual(rec.valor, { valorRec: '35.85' });
    assert.equal(rec.vinculo.devedor.cpf, '45164632481');
    assert.equal(rec.calendario.periodicidade, 'MENSAL');
    assert.equal(rec.ativacao.tipoJornada, 'AGUARDANDO_DEFINICAO');
    assert.deepEqual(
      rec.atualizacao.map((a: { status: string }) => a.status),
      ['CRIADA'],
    );
    assert.ok(rec.recebedor.nome);
    const read = await call('GET', `/v2/rec/${rec.idRec}`);
    assert.deepEqual(read.body, rec);
    const retries = await newRec({ politicaRetentativa: 'PERMITE_3R_7D' });
    assert.match(retries.idRec, /^RR/, 'R after R: retries allowed');
    const calls = await receiver.waitForCalls(2, '/auto/rec');
    const ids = calls.map((c) => c.body.recs[0].idRec);
    assert.ok(ids.includes(rec.idRec));
    assert.equal(calls.find((c) => c.body.recs[0].idRec === rec.idRec)?.body.recs[0].status, 'CRIADA');
  });

  it('refuses a recurrence off the rules, naming the field', async () => {
    expectInvalid(
      await call('POST', '/v2/rec', recBody({ valor: { valorRec: '10.00', valorMinimoRecebedor: '5.00' } })),
      'rec.valor',
    );
    expectInvalid(
      await call('POST', '/v2/rec', recBody({ calendario: { dataInicial: '2020-01-01', periodicidade: 'MENSAL' } })),
      'rec.calendario.dataInicial',
    );
    expectInvalid(
      await call(
        'POST',
        '/v2/rec',
        recBody({ calendario: { dataInicial: '2099-01-10', dataFinal: '2099-01-01', periodicidade: 'MENSAL' } }),
      ),
      'rec.calendario.dataFinal',
    );
    expectInvalid(await call('POST', '/v2/rec', recBody({}, { cnpj: '12345678000195' })), 'rec.vinculo.devedor');
    expectInvalid(
      await call('POST', '/v2/rec', recBody({ calendario: { dataInicial: '2099-01-10', periodicidade: 'DIARIA' } })),
      'rec.calendario.periodicidade',
    );
    expectInvalid(await call('POST', '/v2/rec', recBody({ politicaRetentativa: 'SEMPRE' })), 'rec.politicaRetentativa');
    expectInvalid(await call('POST', '/v2/rec', recBody({ loc: 9999 })), 'rec.loc');
    expectInvalid(
      await call('POST', '/v2/rec', recBody({ ativacao: { dadosJornada: { txid: 'NaoExiste0000000000000000001' } } })),
      'rec.ativacao.dadosJornada.txid',
    );
  });

  it('answers 404 RecNaoEncontrada for an unknown or foreign idRec', async () => {
    const unknown = await call('GET', '/v2/rec/RN9999900820990101abcdefghijk');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.type, /RecNaoEncontrada$/);
    const rec = await newRec();
    const other = await svc.newParty();
    const foreign = await other.http.request('GET', `/v2/rec/${rec.idRec}`, { token: await other.token() });
    assert.equal(foreign.status, 404, 'another account does not see it');
    const patch = await call('PATCH', '/v2/rec/RN9999900820990101abcdefghijk', { status: 'CANCELADA' });
    assert.equal(patch.status, 404);
  });

  it('goes CRIADA → APROVADA → CANCELADA through the payer in the sandbox, with /rec webhooks', async () => {
    const rec = await newRec();
    const approved = await call('POST', `/sandbox/rec/${rec.idRec}/aprovar`, {
      pagador: {
        cpf: '45164632481',
        nome: 'Fulano de Tal',
        ispbParticipante: '12345678',
        agencia: '0001',
        conta: '123456',
      },
    });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.status, 'APROVADA');
    assert.equal(approved.body.ativacao.tipoJornada, 'JORNADA_2');
    assert.deepEqual(approved.body.pagador, {
      ispbParticipante: '12345678',
      cpf: '45164632481',
      nome: 'Fulano de Tal',
      agencia: '0001',
      conta: '123456',
    });
    // Approving twice is not a transition the standard has.
    expectInvalid(await call('POST', `/sandbox/rec/${rec.idRec}/aprovar`), 'rec.status');
    // The receiver may no longer move the first date of an approved recurrence.
    expectInvalid(
      await call('PATCH', `/v2/rec/${rec.idRec}`, { calendario: { dataInicial: '2099-02-10' } }),
      'rec.calendario.dataInicial',
    );
    const cancelled = await call('POST', `/sandbox/rec/${rec.idRec}/cancelar`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'CANCELADA');
    assert.equal(cancelled.body.encerramento.cancelamento.solicitante, 'USUARIO_PAGADOR');
    assert.deepEqual(
      cancelled.body.atualizacao.map((a: { status: string }) => a.status),
      ['CRIADA', 'APROVADA', 'CANCELADA'],
    );
    const last = await waitFor(
      async () =>
        receiver
          .callsTo('/auto/rec')
          .find((c) => c.body.recs[0].idRec === rec.idRec && c.body.recs[0].status === 'CANCELADA'),
      'the cancellation callback',
    );
    assert.equal(last.body.recs[0].encerramento.cancelamento.codigo, 'ACCL');
    const statuses = receiver
      .callsTo('/auto/rec')
      .filter((c) => c.body.recs[0].idRec === rec.idRec)
      .map((c) => c.body.recs[0].status);
    assert.deepEqual(statuses, ['CRIADA', 'APROVADA', 'CANCELADA'], 'one event per change, in order');
  });

  it('lets the receiver revise and cancel a new recurrence, and nothing after a final status', async () => {
    const rec = await newRec();
    const revised = await call('PATCH', `/v2/rec/${rec.idRec}`, {
      vinculo: { devedor: { nome: 'Fulano Revisado' } },
      calendario: { dataInicial: '2099-02-10' },
    });
    assert.equal(revised.status, 200, revised.text);
    assert.equal(revised.body.vinculo.devedor.nome, 'Fulano Revisado');
    assert.equal(revised.body.calendario.dataInicial, '2099-02-10');
    assert.equal(revised.body.status, 'CRIADA');
    expectInvalid(await call('PATCH', `/v2/rec/${rec.idRec}`, { status: 'APROVADA' }), 'rec.status');
    expectInvalid(await call('PATCH', `/v2/rec/${rec.idRec}`, {}), 'rec');
    const cancelled = await call('PATCH', `/v2/rec/${rec.idRec}`, { status: 'CANCELADA' });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'CANCELADA');
    assert.equal(cancelled.body.encerramento.cancelamento.solicitante, 'USUARIO_RECEBEDOR');
    expectInvalid(await call('PATCH', `/v2/rec/${rec.idRec}`, { status: 'CANCELADA' }), 'rec.status');
    expectInvalid(await call('POST', `/sandbox/rec/${rec.idRec}/aprovar`, {}), 'rec.status');
    expectInvalid(await call('POST', `/sandbox/rec/${rec.idRec}/cancelar`), 'rec.status');
  });

  it('records the immediate charge of journey 3 and checks ?txid= against it', async () => {
    const txid = 'RecJourney3Charge0000000001';
    const cob = await call('PUT', `/v2/cob/${txid}`, cobBody(svc.demo.chaves[0], '10.00'));
    assert.equal(cob.status, 201, cob.text);
    const rec = await newRec({ ativacao: { dadosJornada: { txid } } });
    assert.deepEqual(rec.ativacao, { tipoJornada: 'AGUARDANDO_DEFINICAO', dadosJornada: { txid } });
    assert.equal((await call('GET', `/v2/rec/${rec.idRec}?txid=${txid}`)).status, 200);
    const other = await call('PUT', '/v2/cob/RecJourney3Other00000000001', cobBody(svc.demo.chaves[0], '10.00'));
    assert.equal(other.status, 201);
    expectInvalid(
      await call('GET', `/v2/rec/${rec.idRec}?txid=RecJourney3Other00000000001`),
      'txid',
      'RecConsultaInvalida',
    );
    const approved = await call('POST', `/sandbox/rec/${rec.idRec}/aprovar`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.ativacao.tipoJornada, 'JORNADA_3');
    assert.equal(approved.body.pagador.cpf, '45164632481', 'the debtor pays when no payer is named');
  });

  it('lists with the standard filters and page envelope', async () => {
    const party = await svc.newParty();
    const t = await party.token();
    const pcall = (method: string, path: string, body?: unknown) =>
      party.http.request(method, path, { token: t, body });
    const ids: string[] = [];
    for (const cpf of ['11111111111', '22222222222', '22222222222']) {
      const res = await pcall('POST', '/v2/rec', recBody({ recebedor: { convenio: `c${cpf[0]}` } }, { cpf }));
      assert.equal(res.status, 201, res.text);
      ids.push(res.body.idRec);
    }
    await pcall('PATCH', `/v2/rec/${ids[2]}`, { status: 'CANCELADA' });
    const all = await pcall('GET', `/v2/rec?${RANGE}&paginacao.itensPorPagina=2`);
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.recs.length, 2);
    assert.deepEqual(all.body.parametros.paginacao, {
      paginaAtual: 0,
      itensPorPagina: 2,
      quantidadeDePaginas: 2,
      quantidadeTotalDeItens: 3,
    });
    const byCpf = await pcall('GET', `/v2/rec?${RANGE}&cpf=22222222222`);
    assert.deepEqual(
      byCpf.body.recs.map((r: { idRec: string }) => r.idRec),
      ids.slice(1),
    );
    const byStatus = await pcall('GET', `/v2/rec?${RANGE}&status=CANCELADA`);
    assert.deepEqual(
      byStatus.body.recs.map((r: { idRec: string }) => r.idRec),
      [ids[2]],
    );
    const byConvenio = await pcall('GET', `/v2/rec?${RANGE}&convenio=c1`);
    assert.deepEqual(
      byConvenio.body.recs.map((r: { idRec: string }) => r.idRec),
      [ids[0]],
    );
    expectInvalid(
      await pcall('GET', `/v2/rec?${RANGE}&cpf=22222222222&cnpj=12345678000195`),
      'cpf',
      'RecConsultaInvalida',
    );
    expectInvalid(
      await pcall('GET', '/v2/rec?inicio=2099-01-01T00:00:00Z&fim=2020-01-01T00:00:00Z'),
      'fim',
      'RecConsultaInvalida',
    );
  });

  it('requires the rec scopes', async () => {
    const reader = await svc.newParty({ scopes: ['rec.read'] });
    const res = await reader.http.request('POST', '/v2/rec', { token: await reader.token(), body: recBody() });
    assert.equal(res.status, 403, res.text);
    const list = await reader.http.request('GET', `/v2/rec?${RANGE}`, { token: await reader.token() });
    assert.equal(list.status, 200, list.text);
  });

  it('notifies only the receiving account', async (t) => {
    const other: Party = await svc.newParty();
    const ot = await other.token();
    const res = await other.http.request('POST', '/v2/rec', { token: ot, body: recBody() });
    assert.equal(res.status, 201);
    await outboxIdle(svc);
    assert.ok(
      !receiver.callsTo('/auto/rec').some((c) => c.body.recs[0].idRec === res.body.idRec),
      "another account's recurrence is not POSTed to this account's webhook",
    );
    t.diagnostic('other account has no webhook: its event is done with no attempt');
  });
});
