import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePix, hasError } from 'pix-utils';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { insertLocation, type TipoCob } from '../../src/pix/loc/store.ts';
import { REQUEST_EXAMPLES } from '../../src/platform/openapi-examples.ts';
import { DEFAULT_ADDRESS } from '../../src/accounts/service.ts';

const RANGE = 'inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z';
const DUE = '2099-12-31';
let serial = 0;
/** A fresh valid txid per call: tests share one account. */
const newTxid = (prefix: string) => `${prefix}${String(++serial).padStart(4, '0')}`.padEnd(30, '0');

/** A valid due-charge body (Bacen cobBody1 shape) for the given key. */
/** The API reference's example of a due charge (src/platform/openapi-examples.ts), for `chave`. */
function cobvBody<E extends Record<string, unknown>>(chave: string, extra: E = {} as E) {
  return { ...structuredClone(REQUEST_EXAMPLES['PUT /v2/cobv/:txid']), chave, ...extra };
}

describe('due charges (cobv)', () => {
  let svc: TestService;
  let token: string;
  let chave: string;
  const call = (method: string, path: string, body?: unknown) => svc.demo.http.request(method, path, { token, body });
  const freeLocation = async (party: Party, tipoCob: TipoCob) =>
    (await insertLocation(svc.service.ctx.db, party.accountId, tipoCob, svc.clock.now())).id;

  before(async () => {
    svc = await startTestService();
    token = await svc.demo.token();
    chave = svc.demo.chaves[0];
  });
  after(() => svc.close());

  it('creates a due charge with a cobv location and a valid dynamic BR Code', async () => {
    const txid = newTxid('CreateCobv');
    const sent = cobvBody(chave, { infoAdicionais: [{ nome: 'Pedido', valor: '42' }] });
    const res = await call('PUT', `/v2/cobv/${txid}`, sent);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const cobv = res.body;
    assert.equal(cobv.txid, txid);
    assert.equal(cobv.revisao, 0);
    assert.equal(cobv.status, 'ATIVA');
    assert.deepEqual(Object.keys(cobv.calendario).sort(), ['criacao', 'dataDeVencimento', 'validadeAposVencimento']);
    assert.equal(cobv.calendario.dataDeVencimento, DUE);
    assert.equal(cobv.calendario.validadeAposVencimento, 30);
    assert.ok(!Number.isNaN(Date.parse(cobv.calendario.criacao)));
    assert.deepEqual(cobv.devedor, sent.devedor, 'the address is kept');
    assert.deepEqual(cobv.valor, sent.valor, 'valor is shown as sent');
    assert.deepEqual(cobv.infoAdicionais, sent.infoAdicionais);
    assert.equal(cobv.chave, chave);
    assert.equal(cobv.solicitacaoPagador, sent.solicitacaoPagador);
    assert.equal(cobv.loc.tipoCob, 'cobv');
    assert.ok(!Number.isNaN(Date.parse(cobv.loc.criacao)));
    assert.equal(cobv.location, cobv.loc.location);
    assert.match(cobv.location, /\/cobv\//);
    // Bacen CobVGerada requires the receiver, with its address (DadosRecebedor).
    assert.deepEqual(Object.keys(cobv.recebedor).sort(), ['cep', 'cidade', 'cnpj', 'logradouro', 'nome', 'uf']);
    assert.deepEqual(
      {
        logradouro: cobv.recebedor.logradouro,
        cidade: cobv.recebedor.cidade,
        uf: cobv.recebedor.uf,
        cep: cobv.recebedor.cep,
      },
      DEFAULT_ADDRESS,
      "the demo account's address",
    );
    const parsed = parsePix(cobv.pixCopiaECola);
    assert.ok(!hasError(parsed), 'pix-utils accepts the code');
    assert.equal((parsed as { type: string }).type, 'DYNAMIC');
    assert.equal((parsed as { url: string }).url, cobv.location);

    const read = await call('GET', `/v2/cobv/${txid}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, cobv);
  });

  it('defaults validadeAposVencimento to 30 days', async () => {
    const txid = newTxid('DefaultValidade');
    const res = await call('PUT', `/v2/cobv/${txid}`, cobvBody(chave, { calendario: { dataDeVencimento: DUE } }));
    assert.equal(res.status, 201);
    assert.equal(res.body.calendario.validadeAposVencimento, 30);
  });

  it('is paid in the sandbox when up to 10.00, at the amount due today, and then shows its pix', async () => {
    const txid = newTxid('SandboxPaid');
    const res = await call(
      'PUT',
      `/v2/cobv/${txid}`,
      cobvBody(chave, {
        valor: {
          original: '10.00',
          abatimento: { modalidade: 1, valorPerc: '1.50' },
          multa: { modalidade: 1, valorPerc: '5.00' },
        },
      }),
    );
    assert.equal(res.status, 201);
    const paid = await waitFor(async () => {
      const read = await call('GET', `/v2/cobv/${txid}`);
      return read.body.status === 'CONCLUIDA' && read.body;
    }, 'sandbox settlement of a due charge');
    assert.equal(paid.pix.length, 1);
    assert.equal(paid.pix[0].valor, '8.50', 'original minus abatimento, no multa before the due date');
    assert.equal(paid.pix[0].txid, txid);
    const patch = await call('PATCH', `/v2/cobv/${txid}`, { solicitacaoPagador: 'tarde demais' });
    assert.equal(patch.status, 400, 'a paid charge is no longer ATIVA');
    assert.equal(patch.body.violacoes[0].propriedade, 'cobv.status');
  });

  it('refuses a txid already used, by a due or an immediate charge', async () => {
    const txid = newTxid('DuplicateCobv');
    assert.equal((await call('PUT', `/v2/cobv/${txid}`, cobvBody(chave))).status, 201);
    const again = await call('PUT', `/v2/cobv/${txid}`, cobvBody(chave));
    assert.equal(again.status, 400);
    assert.match(again.body.type, /CobVOperacaoInvalida$/);
    assert.equal(again.body.violacoes[0].propriedade, 'txid');
    const cobTxid = newTxid('ImmediateFirst');
    assert.equal((await call('PUT', `/v2/cob/${cobTxid}`, cobBody(chave))).status, 201);
    assert.equal((await call('PUT', `/v2/cobv/${cobTxid}`, cobvBody(chave))).status, 400);
  });

  it('uses a free cobv location named by loc.id, and moves to another on revision', async () => {
    const first = await freeLocation(svc.demo, 'cobv');
    const second = await freeLocation(svc.demo, 'cobv');
    const txid = newTxid('LocCobv');
    const created = await call('PUT', `/v2/cobv/${txid}`, cobvBody(chave, { loc: { id: first } }));
    assert.equal(created.status, 201);
    assert.equal(created.body.loc.id, first);
    const moved = await call('PATCH', `/v2/cobv/${txid}`, { loc: { id: second } });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.loc.id, second);
    const taken = await call('PUT', `/v2/cobv/${newTxid('LocTaken')}`, cobvBody(chave, { loc: { id: second } }));
    assert.equal(taken.status, 400);
    assert.equal(taken.body.violacoes[0].propriedade, 'cobv.loc.id');
  });

  it('revises a due charge, merging calendario and valor, keeping every revision readable', async () => {
    const txid = newTxid('ReviseCobv');
    await call('PUT', `/v2/cobv/${txid}`, cobvBody(chave));
    const r1 = await call('PATCH', `/v2/cobv/${txid}`, {
      valor: { original: '200.00' },
      calendario: { validadeAposVencimento: 5 },
    });
    assert.equal(r1.status, 200, JSON.stringify(r1.body));
    assert.equal(r1.body.revisao, 1);
    assert.equal(r1.body.valor.original, '200.00');
    assert.deepEqual(r1.body.valor.multa, { modalidade: 2, valorPerc: '15.00' }, 'the other valor fields survive');
    assert.equal(r1.body.calendario.dataDeVencimento, DUE, 'the other calendario fields survive');
    assert.equal(r1.body.calendario.validadeAposVencimento, 5);
    const r2 = await call('PATCH', `/v2/cobv/${txid}`, {
      devedor: { cnpj: '12345678000195', nome: 'Empresa S.A.' },
      valor: { juros: { modalidade: 5, valorPerc: '0.10' } },
    });
    assert.equal(r2.status, 200, JSON.stringify(r2.body));
    assert.deepEqual(r2.body.devedor, { cnpj: '12345678000195', nome: 'Empresa S.A.' }, 'devedor is replaced whole');
    assert.deepEqual(r2.body.valor.juros, { modalidade: 5, valorPerc: '0.10' });
    assert.equal(r2.body.valor.original, '200.00');
    assert.equal(r1.body.loc.id, r2.body.loc.id, 'the location stays');

    assert.equal((await call('GET', `/v2/cobv/${txid}`)).body.revisao, 2);
    const rev0 = await call('GET', `/v2/cobv/${txid}?revisao=0`);
    assert.equal(rev0.body.revisao, 0);
    assert.equal(rev0.body.valor.original, '123.45');
    assert.equal(rev0.body.devedor.cpf, '12345678909');
    assert.equal(rev0.body.calendario.validadeAposVencimento, 30);
    assert.equal((await call('GET', `/v2/cobv/${txid}?revisao=1`)).body.valor.original, '200.00');
    const missing = await call('GET', `/v2/cobv/${txid}?revisao=7`);
    assert.equal(missing.status, 400);
    assert.match(missing.body.type, /CobVConsultaInvalida$/);
    assert.equal(missing.body.violacoes[0].propriedade, 'revisao');
    const bad = await call('GET', `/v2/cobv/${txid}?revisao=x`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.type, /CobVConsultaInvalida$/);
  });

  it('checks a revision as a whole: an earlier due date cannot leave a discount date after it', async () => {
    const txid = newTxid('WholeRevision');
    await call('PUT', `/v2/cobv/${txid}`, cobvBody(chave));
    const res = await call('PATCH', `/v2/cobv/${txid}`, { calendario: { dataDeVencimento: '2099-11-01' } });
    assert.equal(res.status, 400);
    assert.match(res.body.type, /CobVOperacaoInvalida$/);
    assert.ok(
      res.body.violacoes.some(
        (v: { propriedade: string }) => v.propriedade === 'cobv.valor.desconto.descontoDataFixa.0.data',
      ),
      JSON.stringify(res.body.violacoes),
    );
    assert.equal((await call('GET', `/v2/cobv/${txid}`)).body.revisao, 0, 'nothing written');
  });

  it('removes a due charge by PATCH status; only ATIVA charges can be revised', async () => {
    const txid = newTxid('RemoveCobv');
    await call('PUT', `/v2/cobv/${txid}`, cobvBody(chave));
    const mixed = await call('PATCH', `/v2/cobv/${txid}`, {
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      solicitacaoPagador: 'x',
    });
    assert.equal(mixed.status, 400);
    assert.match(mixed.body.type, /CobVOperacaoInvalida$/);
    const removed = await call('PATCH', `/v2/cobv/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
    assert.equal(removed.body.revisao, 1);
    for (const patch of [{ solicitacaoPagador: 'x' }, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }]) {
      const res = await call('PATCH', `/v2/cobv/${txid}`, patch);
      assert.equal(res.status, 400);
      assert.match(res.body.type, /CobVOperacaoInvalida$/);
      assert.equal(res.body.violacoes[0].propriedade, 'cobv.status');
    }
    const bad = await call('PATCH', `/v2/cobv/${newTxid('RemoveBadStatus')}`, { status: 'CONCLUIDA' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.violacoes[0].propriedade, 'cobv.status');
  });

  it('answers 404 CobVNaoEncontrada for an unknown txid, and keeps cob and cobv apart', async () => {
    const unknown = newTxid('UnknownCobv');
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { solicitacaoPagador: 'x' }],
    ] as const) {
      const res = await call(method, `/v2/cobv/${unknown}`, body);
      assert.equal(res.status, 404, method);
      assert.match(res.body.type, /CobVNaoEncontrada$/);
    }
    const cobTxid = newTxid('ImmediateOnly');
    await call('PUT', `/v2/cob/${cobTxid}`, cobBody(chave));
    assert.equal((await call('GET', `/v2/cobv/${cobTxid}`)).status, 404);
    const cobvTxid = newTxid('DueOnly');
    await call('PUT', `/v2/cobv/${cobvTxid}`, cobvBody(chave));
    assert.equal((await call('GET', `/v2/cob/${cobvTxid}`)).status, 404);
  });

  it('isolates accounts: another account neither reads, revises nor lists a due charge', async () => {
    const txid = newTxid('IsolatedCobv');
    await call('PUT', `/v2/cobv/${txid}`, cobvBody(chave));
    const other = await svc.newParty();
    const t = await other.token();
    assert.equal((await other.http.request('GET', `/v2/cobv/${txid}`, { token: t })).status, 404);
    assert.equal(
      (await other.http.request('PATCH', `/v2/cobv/${txid}`, { token: t, body: { solicitacaoPagador: 'x' } })).status,
      404,
    );
    assert.equal((await other.http.request('GET', `/v2/cobv?${RANGE}`, { token: t })).body.cobs.length, 0);
    // Nor can it use the demo's key or location.
    const foreignKey = await other.http.request('PUT', `/v2/cobv/${newTxid('ForeignKey')}`, {
      token: t,
      body: cobvBody(chave),
    });
    assert.equal(foreignKey.status, 400);
    assert.equal(foreignKey.body.violacoes[0].propriedade, 'cobv.chave');
    const loc = await freeLocation(svc.demo, 'cobv');
    const foreignLoc = await other.http.request('PUT', `/v2/cobv/${newTxid('ForeignLoc')}`, {
      token: t,
      body: cobvBody(other.chaves[0], { loc: { id: loc } }),
    });
    assert.equal(foreignLoc.status, 400);
    assert.equal(foreignLoc.body.violacoes[0].propriedade, 'cobv.loc.id');
  });

  it('requires cobv.read to read and cob.write to write', async () => {
    const reader = await svc.newParty({ scopes: ['cob.read', 'cob.write'] });
    const t = await reader.token();
    assert.equal(
      (
        await reader.http.request('PUT', `/v2/cobv/${newTxid('ScopeWrite')}`, {
          token: t,
          body: cobvBody(reader.chaves[0]),
        })
      ).status,
      201,
    );
    const list = await reader.http.request('GET', `/v2/cobv?${RANGE}`, { token: t });
    assert.equal(list.status, 403);
    assert.match(list.body.type, /AcessoNegado$/);
  });

  it('lists due charges with date range, filters and pagination, and only due charges', async () => {
    const fresh = await svc.newParty();
    const t = await fresh.token();
    const put = (body: unknown) => fresh.http.request('PUT', `/v2/cobv/${newTxid('ListCobv')}`, { token: t, body });
    // Above 10.00, so the sandbox's fictitious payer leaves them ATIVA.
    for (let i = 0; i < 5; i++)
      assert.equal((await put(cobvBody(fresh.chaves[0], { valor: { original: `${i + 11}.00` } }))).status, 201);
    await put(cobvBody(fresh.chaves[0], { devedor: { cnpj: '12345678000195', nome: 'Empresa' } }));
    await fresh.http.request('POST', '/v2/cob', { token: t, body: cobBody(fresh.chaves[0]) });
    const list = (query: string) => fresh.http.request('GET', `/v2/cobv?${RANGE}&${query}`, { token: t });

    const page0 = await list('paginacao.itensPorPagina=4');
    assert.equal(page0.status, 200);
    assert.equal(page0.body.cobs.length, 4);
    assert.deepEqual(page0.body.parametros.paginacao, {
      paginaAtual: 0,
      itensPorPagina: 4,
      quantidadeDePaginas: 2,
      quantidadeTotalDeItens: 6,
    });
    const page1 = await list('paginacao.itensPorPagina=4&paginacao.paginaAtual=1');
    assert.equal(page1.body.cobs.length, 2);
    const all = [...page0.body.cobs, ...page1.body.cobs];
    assert.equal(new Set(all.map((c: { txid: string }) => c.txid)).size, 6, 'pages do not overlap');
    assert.ok(
      all.every(
        (c: { loc: { tipoCob: string }; calendario: { dataDeVencimento: string } }) =>
          c.loc.tipoCob === 'cobv' && c.calendario.dataDeVencimento === DUE,
      ),
    );

    assert.equal((await list('cnpj=12345678000195')).body.cobs.length, 1);
    assert.equal((await list('cpf=12345678909')).body.cobs.length, 5);
    assert.equal((await list('status=ATIVA')).body.cobs.length, 6);
    assert.equal((await list('status=CONCLUIDA')).body.cobs.length, 0);
    // A charge created by PUT /cobv belongs to no batch (test/pix/lotecobv.test.ts covers batch charges).
    for (const q of ['loteCobvId=1', 'loteCobVId=1']) {
      const batch = await list(q);
      assert.equal(batch.status, 200, q);
      assert.deepEqual([batch.body.cobs.length, batch.body.parametros.paginacao.quantidadeTotalDeItens], [0, 0], q);
    }
    const empty = await fresh.http.request('GET', '/v2/cobv?inicio=2020-01-01T00:00:00Z&fim=2020-01-02T00:00:00Z', {
      token: t,
    });
    assert.equal(empty.body.cobs.length, 0);
  });

  it('refuses bad list queries with CobVConsultaInvalida naming the parameter', async () => {
    const cases: [string, string][] = [
      ['fim=2099-01-01T00:00:00Z', 'querystring.inicio'],
      ['inicio=2030-01-01T00:00:00Z&fim=2020-01-01T00:00:00Z', 'fim'],
      [`${RANGE}&cpf=12345678909&cnpj=12345678000195`, 'cpf'],
      [`${RANGE}&paginacao.itensPorPagina=0`, 'querystring.paginacao.itensPorPagina'],
      [`${RANGE}&paginacao.paginaAtual=-1`, 'querystring.paginacao.paginaAtual'],
      [`${RANGE}&status=VENCIDA`, 'querystring.status'],
      [`${RANGE}&loteCobvId=abc`, 'querystring.loteCobvId'],
      [`${RANGE}&loteCobVId=1.5`, 'querystring.loteCobVId'],
      [`${RANGE}&naoExiste=1`, 'querystring.naoExiste'],
    ];
    for (const [query, property] of cases) {
      const res = await call('GET', `/v2/cobv?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(res.body.type, /CobVConsultaInvalida$/, query);
      assert.ok(
        res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === property),
        `${query}: ${JSON.stringify(res.body.violacoes)}`,
      );
    }
  });

  describe('bad input is a 400 CobVOperacaoInvalida naming the property', () => {
    const base = () => cobvBody(chave);
    const withValor = (valor: Record<string, unknown>) => () => ({
      ...base(),
      valor: { original: '100.00', ...valor },
    });
    const withDevedor = (devedor: Record<string, unknown>) => () => ({
      ...base(),
      devedor: { cpf: '12345678909', nome: 'X', ...devedor },
    });
    const withCalendario = (calendario: Record<string, unknown>) => () => ({ ...base(), calendario });
    const tiers = (...datas: string[]) => datas.map((data) => ({ data, valorPerc: '1.00' }));
    const cases: [string, () => unknown, string][] = [
      ['missing devedor', () => ({ ...base(), devedor: undefined }), 'cobv.devedor'],
      ['devedor without document', () => ({ ...base(), devedor: { nome: 'X' } }), 'cobv.devedor'],
      ['devedor without nome', () => ({ ...base(), devedor: { cpf: '12345678909' } }), 'cobv.devedor.nome'],
      ['bad CPF check digit', withDevedor({ cpf: '12345678900' }), 'cobv.devedor.cpf'],
      ['cpf and cnpj together', withDevedor({ cnpj: '12345678000195' }), 'cobv.devedor'],
      ['uf in lower case', withDevedor({ uf: 'pe' }), 'cobv.devedor.uf'],
      ['uf of three letters', withDevedor({ uf: 'PER' }), 'cobv.devedor.uf'],
      ['cep of seven digits', withDevedor({ cep: '7001175' }), 'cobv.devedor.cep'],
      ['cep with a dash', withDevedor({ cep: '70011-750' }), 'cobv.devedor.cep'],
      ['logradouro over 200', withDevedor({ logradouro: 'x'.repeat(201) }), 'cobv.devedor.logradouro'],
      ['cidade over 200', withDevedor({ cidade: 'x'.repeat(201) }), 'cobv.devedor.cidade'],
      ['email over 254', withDevedor({ email: `${'x'.repeat(250)}@a.br` }), 'cobv.devedor.email'],
      ['unknown devedor field', withDevedor({ bairro: 'Braz' }), 'cobv.devedor.bairro'],
      ['missing calendario', () => ({ ...base(), calendario: undefined }), 'cobv.calendario'],
      ['missing dataDeVencimento', withCalendario({ validadeAposVencimento: 30 }), 'cobv.calendario.dataDeVencimento'],
      [
        'dataDeVencimento that does not exist',
        withCalendario({ dataDeVencimento: '2099-02-30' }),
        'cobv.calendario.dataDeVencimento',
      ],
      [
        'dataDeVencimento with a time',
        withCalendario({ dataDeVencimento: '2099-12-31T00:00:00Z' }),
        'cobv.calendario.dataDeVencimento',
      ],
      [
        'dataDeVencimento in Brazilian format',
        withCalendario({ dataDeVencimento: '31/12/2099' }),
        'cobv.calendario.dataDeVencimento',
      ],
      [
        'dataDeVencimento before today',
        withCalendario({ dataDeVencimento: '2020-01-01' }),
        'cobv.calendario.dataDeVencimento',
      ],
      [
        'negative validadeAposVencimento',
        withCalendario({ dataDeVencimento: DUE, validadeAposVencimento: -1 }),
        'cobv.calendario.validadeAposVencimento',
      ],
      [
        'validadeAposVencimento as text',
        withCalendario({ dataDeVencimento: DUE, validadeAposVencimento: '30' }),
        'cobv.calendario.validadeAposVencimento',
      ],
      [
        'validadeAposVencimento past year 9999',
        withCalendario({ dataDeVencimento: DUE, validadeAposVencimento: 2147483647 }),
        'cobv.calendario.validadeAposVencimento',
      ],
      [
        'expiracao belongs to cob',
        withCalendario({ dataDeVencimento: DUE, expiracao: 3600 }),
        'cobv.calendario.expiracao',
      ],
      ['amount 0.00', withValor({ original: '0.00' }), 'cobv.valor.original'],
      ['amount 1.5', withValor({ original: '1.5' }), 'cobv.valor.original'],
      [
        'missing valor.original',
        () => ({ ...base(), valor: { multa: { modalidade: 1, valorPerc: '1.00' } } }),
        'cobv.valor.original',
      ],
      ['modalidadeAlteracao belongs to cob', withValor({ modalidadeAlteracao: 1 }), 'cobv.valor.modalidadeAlteracao'],
      ['multa modalidade 3', withValor({ multa: { modalidade: 3, valorPerc: '1.00' } }), 'cobv.valor.multa.modalidade'],
      [
        'multa modalidade as text',
        withValor({ multa: { modalidade: '2', valorPerc: '1.00' } }),
        'cobv.valor.multa.modalidade',
      ],
      ['multa without valorPerc', withValor({ multa: { modalidade: 1 } }), 'cobv.valor.multa.valorPerc'],
      [
        'multa valorPerc without decimals',
        withValor({ multa: { modalidade: 2, valorPerc: '2' } }),
        'cobv.valor.multa.valorPerc',
      ],
      [
        'multa valorPerc as number',
        withValor({ multa: { modalidade: 2, valorPerc: 2.5 } }),
        'cobv.valor.multa.valorPerc',
      ],
      ['juros modalidade 0', withValor({ juros: { modalidade: 0, valorPerc: '1.00' } }), 'cobv.valor.juros.modalidade'],
      ['juros modalidade 9', withValor({ juros: { modalidade: 9, valorPerc: '1.00' } }), 'cobv.valor.juros.modalidade'],
      [
        'abatimento modalidade 3',
        withValor({ abatimento: { modalidade: 3, valorPerc: '1.00' } }),
        'cobv.valor.abatimento.modalidade',
      ],
      [
        'abatimento equal to the original',
        withValor({ abatimento: { modalidade: 1, valorPerc: '100.00' } }),
        'cobv.valor.abatimento.valorPerc',
      ],
      [
        'abatimento of 100%',
        withValor({ abatimento: { modalidade: 2, valorPerc: '100.00' } }),
        'cobv.valor.abatimento.valorPerc',
      ],
      [
        'desconto modalidade 7',
        withValor({ desconto: { modalidade: 7, valorPerc: '1.00' } }),
        'cobv.valor.desconto.modalidade',
      ],
      ['desconto 1 without dates', withValor({ desconto: { modalidade: 1 } }), 'cobv.valor.desconto.descontoDataFixa'],
      [
        'desconto 1 with valorPerc',
        withValor({ desconto: { modalidade: 1, valorPerc: '1.00', descontoDataFixa: tiers('2099-12-01') } }),
        'cobv.valor.desconto.valorPerc',
      ],
      [
        'desconto 2 with no dates',
        withValor({ desconto: { modalidade: 2, descontoDataFixa: [] } }),
        'cobv.valor.desconto.descontoDataFixa',
      ],
      [
        'desconto with four dates',
        withValor({
          desconto: { modalidade: 1, descontoDataFixa: tiers('2099-12-01', '2099-12-02', '2099-12-03', '2099-12-04') },
        }),
        'cobv.valor.desconto.descontoDataFixa',
      ],
      [
        'desconto date after the due date',
        withValor({ desconto: { modalidade: 1, descontoDataFixa: tiers('2100-01-01') } }),
        'cobv.valor.desconto.descontoDataFixa.0.data',
      ],
      [
        'desconto date repeated',
        withValor({ desconto: { modalidade: 1, descontoDataFixa: tiers('2099-12-01', '2099-12-01') } }),
        'cobv.valor.desconto.descontoDataFixa.1.data',
      ],
      [
        'desconto date that does not exist',
        withValor({ desconto: { modalidade: 1, descontoDataFixa: tiers('2099-11-31') } }),
        'cobv.valor.desconto.descontoDataFixa.0.data',
      ],
      [
        'desconto 1 equal to the original',
        withValor({ desconto: { modalidade: 1, descontoDataFixa: [{ data: '2099-12-01', valorPerc: '100.00' }] } }),
        'cobv.valor.desconto.descontoDataFixa.0.valorPerc',
      ],
      [
        'desconto 2 of 100%',
        withValor({ desconto: { modalidade: 2, descontoDataFixa: [{ data: '2099-12-01', valorPerc: '100.00' }] } }),
        'cobv.valor.desconto.descontoDataFixa.0.valorPerc',
      ],
      ['desconto 3 without valorPerc', withValor({ desconto: { modalidade: 3 } }), 'cobv.valor.desconto.valorPerc'],
      [
        'desconto 4 with dates',
        withValor({ desconto: { modalidade: 4, valorPerc: '1.00', descontoDataFixa: tiers('2099-12-01') } }),
        'cobv.valor.desconto.descontoDataFixa',
      ],
      [
        'desconto 5 of 100% a day',
        withValor({ desconto: { modalidade: 5, valorPerc: '100.00' } }),
        'cobv.valor.desconto.valorPerc',
      ],
      ['unknown valor field', withValor({ tarifa: '1.00' }), 'cobv.valor.tarifa'],
      [
        'juros that outgrow the largest Pix amount',
        withValor({ original: '9999999999.00', juros: { modalidade: 2, valorPerc: '100.00' } }),
        'cobv.valor',
      ],
      ['missing chave', () => ({ ...base(), chave: undefined }), 'cobv.chave'],
      ['unknown chave', () => ({ ...base(), chave: 'nao-e-minha@example.com' }), 'cobv.chave'],
      [
        'solicitacaoPagador over 140',
        () => ({ ...base(), solicitacaoPagador: 'x'.repeat(141) }),
        'cobv.solicitacaoPagador',
      ],
      ['unknown field', () => ({ ...base(), expiracao: 3600 }), 'cobv.expiracao'],
      ['unknown loc', () => ({ ...base(), loc: { id: 999999 } }), 'cobv.loc.id'],
      ['body is an array', () => [base()], 'cobv'],
    ];
    for (const [name, body, property] of cases) {
      it(name, async () => {
        const res = await call('PUT', `/v2/cobv/${newTxid('BadInput')}`, body());
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.match(res.body.type, /CobVOperacaoInvalida$/);
        assert.ok(
          res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === property),
          JSON.stringify(res.body.violacoes),
        );
      });
    }

    it('a location of type cob (multa and all)', async () => {
      const loc = await freeLocation(svc.demo, 'cob');
      const res = await call('PUT', `/v2/cobv/${newTxid('CobTypeLoc')}`, { ...base(), loc: { id: loc } });
      assert.equal(res.status, 400);
      assert.match(res.body.type, /CobVOperacaoInvalida$/);
      assert.equal(res.body.violacoes[0].propriedade, 'cobv.loc.id');
      assert.match(res.body.detail, /deveria ser "cobv"/);
    });

    it('a txid outside [a-zA-Z0-9]{26,35}', async () => {
      for (const txid of ['short', 'a'.repeat(36), 'invalid-chars-0000000000000000']) {
        const res = await call('PUT', `/v2/cobv/${txid}`, base());
        assert.equal(res.status, 400, txid);
        assert.ok(res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === 'params.txid'));
      }
    });

    it('malformed JSON', async () => {
      const res = await svc.demo.http.request('PUT', `/v2/cobv/${newTxid('Malformed')}`, {
        token,
        rawBody: '{"valor": ',
      });
      assert.equal(res.status, 400);
      assert.match(res.body.type, /CobVOperacaoInvalida$/);
    });

    it('a revision with a bad modality or a past due date', async () => {
      const txid = newTxid('BadRevision');
      await call('PUT', `/v2/cobv/${txid}`, base());
      const cases: [unknown, string][] = [
        [{ valor: { multa: { modalidade: 5, valorPerc: '1.00' } } }, 'cobv.valor.multa.modalidade'],
        [{ calendario: { dataDeVencimento: '2020-01-01' } }, 'cobv.calendario.dataDeVencimento'],
        [{ devedor: { nome: 'Sem documento' } }, 'cobv.devedor'],
        [{ calendario: { expiracao: 10 } }, 'cobv.calendario.expiracao'],
      ];
      for (const [patch, property] of cases) {
        const res = await call('PATCH', `/v2/cobv/${txid}`, patch);
        assert.equal(res.status, 400, JSON.stringify(patch));
        assert.match(res.body.type, /CobVOperacaoInvalida$/);
        assert.ok(
          res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === property),
          JSON.stringify(res.body.violacoes),
        );
      }
    });
  });
});
