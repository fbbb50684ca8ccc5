/** Batches of due charges: the list, account isolation and the backlog limit (503). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { RANGE, batchApi, item, newBatchId, newTxid, pauseJobs } from './lotecobv-fixtures.ts';

describe('batches of due charges: list, isolation, backlog', () => {
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('lists batches in the lotes envelope, with window, filters and pages', async () => {
    const party = await svc.newParty();
    const api = batchApi(party);
    const chave = party.chaves[0];
    const ids = [newBatchId(), newBatchId(), newBatchId()];
    await api.create(ids[0], [item(chave, newTxid('ListCpf'))]);
    await api.create(ids[1], [
      item(chave, newTxid('ListCnpj'), { devedor: { cnpj: '12345678000195', nome: 'Empresa' } }),
    ]);
    await api.create(ids[2], [
      item(chave, newTxid('ListOk')),
      item(chave, newTxid('ListDenied'), { valor: { original: '0.00' } }),
    ]);
    const list = (query: string) => api.call('GET', `/v2/lotecobv?${RANGE}&${query}`);

    const all = await list('');
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.parametros, {
      inicio: '2020-01-01T00:00:00Z',
      fim: '2099-01-01T00:00:00Z',
      paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 3 },
    });
    assert.deepEqual(
      all.body.lotes.map((l: { id: number }) => l.id),
      ids,
      'oldest first',
    );
    assert.deepEqual(all.body.lotes[2], (await api.get(ids[2])).body, 'each batch as GET /v2/lotecobv/:id shows it');

    const page1 = await list('paginacao.itensPorPagina=2&paginacao.paginaAtual=1');
    assert.deepEqual(
      page1.body.lotes.map((l: { id: number }) => l.id),
      [ids[2]],
    );
    assert.equal(page1.body.parametros.paginacao.quantidadeDePaginas, 2);
    const ofIds = async (query: string) => (await list(query)).body.lotes.map((l: { id: number }) => l.id);
    assert.deepEqual(await ofIds('cnpj=12345678000195'), [ids[1]]);
    assert.deepEqual(await ofIds('cpf=12345678909'), [ids[0], ids[2]]);
    assert.deepEqual(await ofIds('status=NEGADA'), [ids[2]]);
    assert.deepEqual(await ofIds('status=CRIADA'), ids);
    assert.deepEqual(await ofIds('status=EM_PROCESSAMENTO'), []);
    const empty = await api.call('GET', '/v2/lotecobv?inicio=2020-01-01T00:00:00Z&fim=2020-01-02T00:00:00Z');
    assert.deepEqual([empty.status, empty.body.lotes], [200, []]);
  });

  it('refuses bad list queries with LoteCobVConsultaInvalida naming the parameter', async () => {
    const api = batchApi(svc.demo);
    const cases: [string, string][] = [
      ['fim=2099-01-01T00:00:00Z', 'querystring.inicio'],
      ['inicio=2030-01-01T00:00:00Z&fim=2020-01-01T00:00:00Z', 'fim'],
      [`${RANGE}&cpf=12345678909&cnpj=12345678000195`, 'cpf'],
      [`${RANGE}&paginacao.itensPorPagina=${LIMITS.lotecobvPageSizeMax + 1}`, 'querystring.paginacao.itensPorPagina'],
      [`${RANGE}&paginacao.paginaAtual=-1`, 'querystring.paginacao.paginaAtual'],
      [`${RANGE}&status=ATIVA`, 'querystring.status'],
      [`${RANGE}&naoExiste=1`, 'querystring.naoExiste'],
    ];
    for (const [query, property] of cases) {
      const res = await api.call('GET', `/v2/lotecobv?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(res.body.type, /\/LoteCobVConsultaInvalida$/, query);
      assert.ok(
        res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === property),
        `${query}: ${res.text}`,
      );
    }
  });

  it('keeps accounts apart: the same batch id and txids are two batches; neither sees the other', async () => {
    const [one, two] = [await svc.newParty(), await svc.newParty()];
    const [apiOne, apiTwo] = [batchApi(one), batchApi(two)];
    const id = newBatchId();
    const txid = newTxid('Shared');
    await apiOne.create(id, [item(one.chaves[0], txid)], 'um');
    assert.equal((await apiTwo.get(id)).status, 404);
    assert.equal((await apiTwo.patch(id, { descricao: 'x' })).status, 404);
    assert.equal((await apiTwo.call('GET', `/v2/lotecobv?${RANGE}`)).body.lotes.length, 0);
    const foreignKey = await apiTwo.create(id, [item(one.chaves[0], txid)], 'dois');
    assert.equal(foreignKey.descricao, 'dois', 'its own batch under the same id');
    assert.equal(
      foreignKey.cobsv[0].problema.violacoes[0].propriedade,
      'cobv.chave',
      "another account's key is refused per item",
    );
    assert.equal((await apiOne.get(id)).body.descricao, 'um');
  });

  // Last: it leaves the account's batches waiting with the job paused until the service closes.
  it(`answers 503 ServicoIndisponivel past ${LIMITS.lotecobvPendingItemsMaxPerAccount} waiting items per account`, async () => {
    const party = await svc.newParty();
    const api = batchApi(party);
    const full = () =>
      Array.from({ length: LIMITS.lotecobvItemsMax }, (_, i) => item(party.chaves[0], newTxid(`Backlog${i}x`)));
    await pauseJobs(svc);
    for (let n = 0; n < LIMITS.lotecobvPendingItemsMaxPerAccount / LIMITS.lotecobvItemsMax; n++)
      assert.equal((await api.put(newBatchId(), full())).status, 202);
    const refused = await api.put(newBatchId(), [item(party.chaves[0], newTxid('OneTooMany'))]);
    assert.equal(refused.status, 503);
    assert.match(refused.body.type, /\/ServicoIndisponivel$/);
    assert.equal(refused.headers['retry-after'], '1');
    const other = batchApi(await svc.newParty());
    assert.equal(
      (await other.put(newBatchId(), [item((await svc.newParty()).chaves[0], newTxid('OtherAccount'))])).status,
      202,
      'the limit is per account',
    );
  });
});
