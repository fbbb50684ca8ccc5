import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePix, hasError } from 'pix-utils';
import { cobBody, startTestService, type TestService } from '../helpers/service.ts';
import { parseBrCode } from '../../src/platform/brcode.ts';
import { LIMITS } from '../../src/platform/limits.ts';

const RANGE = 'inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z';

describe('immediate charges (cob)', () => {
  let svc: TestService;
  let token: string;
  let chave: string;
  const call = (method: string, path: string, body?: unknown) => svc.demo.http.request(method, path, { token, body });

  before(async () => {
    svc = await startTestService();
    token = await svc.demo.token();
    chave = svc.demo.chaves[0];
  });
  after(() => svc.close());

  it('creates a charge with an assigned txid, a location and a valid dynamic BR Code', async () => {
    const res = await call(
      'POST',
      '/v2/cob',
      cobBody(chave, '567.89', { infoAdicionais: [{ nome: 'Campo 1', valor: 'Informação 1' }] }),
    );
    assert.equal(res.status, 201);
    const cob = res.body;
    assert.match(cob.txid, /^[a-zA-Z0-9]{26,35}$/);
    assert.equal(cob.revisao, 0);
    assert.equal(cob.status, 'ATIVA');
    assert.equal(cob.valor.original, '567.89');
    assert.equal(cob.calendario.expiracao, 3600);
    assert.ok(!Number.isNaN(Date.parse(cob.calendario.criacao)));
    assert.equal(cob.loc.tipoCob, 'cob');
    assert.equal(cob.location, cob.loc.location);
    assert.deepEqual(cob.infoAdicionais, [{ nome: 'Campo 1', valor: 'Informação 1' }]);
    const parsed = parsePix(cob.pixCopiaECola);
    assert.ok(!hasError(parsed), 'pix-utils accepts the code');
    assert.equal((parsed as { type: string }).type, 'DYNAMIC');
    assert.equal((parsed as { url: string }).url, cob.location);
    assert.equal((parsed as { merchantName: string }).merchantName, 'Pixd Demo Ltda');
    assert.ok(parseBrCode(cob.pixCopiaECola).valid);
  });

  it('defaults calendario.expiracao to 86400 seconds', async () => {
    const { calendario: _c, ...body } = cobBody(chave);
    const res = await call('POST', '/v2/cob', body);
    assert.equal(res.status, 201);
    assert.equal(res.body.calendario.expiracao, 86400);
  });

  it("creates with the caller's txid and refuses the same txid again", async () => {
    const txid = 'TXIDcaller0000000000000000001';
    const first = await call('PUT', `/v2/cob/${txid}`, cobBody(chave));
    assert.equal(first.status, 201);
    assert.equal(first.body.txid, txid);
    const again = await call('PUT', `/v2/cob/${txid}`, cobBody(chave));
    assert.equal(again.status, 400);
    assert.match(again.body.type, /CobOperacaoInvalida$/);
    assert.equal(again.body.violacoes[0].propriedade, 'txid');
  });

  it('serialises concurrent creates of one txid: exactly one wins', async () => {
    const txid = 'RaceTxid00000000000000000000001';
    const results = await Promise.all(Array.from({ length: 6 }, () => call('PUT', `/v2/cob/${txid}`, cobBody(chave))));
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 400, 400, 400, 400, 400]);
  });

  it('concurrent creates share statements yet keep their own outcome: a foreign key or a duplicate refuses only its request', async () => {
    const other = await svc.newParty();
    const prefix = 'CoalescedTxid000000000000';
    const sends = Array.from({ length: 40 }, (_, n) => {
      if (n === 7) return call('POST', '/v2/cob', cobBody(other.chaves[0]));
      if (n === 13 || n === 14) return call('PUT', `/v2/cob/${prefix}dup00`, cobBody(chave, '13.00'));
      return call('PUT', `/v2/cob/${prefix}${String(n).padStart(5, '0')}`, cobBody(chave, `${n + 1}.00`));
    });
    const results = await Promise.all(sends);
    const foreign = results[7];
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.violacoes[0].propriedade, 'cob.chave');
    assert.deepEqual([results[13].status, results[14].status].sort(), [201, 400], 'one of the two duplicates wins');
    const created = results.filter((_, n) => n !== 7 && n !== 13 && n !== 14);
    assert.ok(created.every((r) => r.status === 201));
    assert.equal(new Set(created.map((r) => r.body.loc.id)).size, created.length, 'each charge has its own location');
    for (const [n, res] of results.entries()) {
      if (n === 7 || n === 13 || n === 14) continue;
      assert.equal(res.body.txid, `${prefix}${String(n).padStart(5, '0')}`);
      assert.equal(res.body.valor.original, `${n + 1}.00`);
      const read = await call('GET', `/v2/cob/${res.body.txid}`);
      assert.equal(read.body.valor.original, `${n + 1}.00`, 'each write landed on its own charge');
      assert.equal(read.body.loc.id, res.body.loc.id);
    }
  });

  it('revises a charge, keeping every revision readable', async () => {
    const txid = 'RevisionTxid000000000000000001';
    await call('PUT', `/v2/cob/${txid}`, cobBody(chave, '110.00'));
    const r1 = await call('PATCH', `/v2/cob/${txid}`, { valor: { original: '120.00' } });
    assert.equal(r1.status, 200);
    assert.equal(r1.body.revisao, 1);
    assert.equal(r1.body.valor.original, '120.00');
    assert.equal(r1.body.devedor.nome, 'Francisco da Silva', 'unchanged fields survive');
    const r2 = await call('PATCH', `/v2/cob/${txid}`, {
      devedor: { cnpj: '12345678000195', nome: 'Empresa S.A.' },
      solicitacaoPagador: 'nova',
    });
    assert.equal(r2.body.revisao, 2);
    assert.deepEqual(r2.body.devedor, { cnpj: '12345678000195', nome: 'Empresa S.A.' });
    assert.equal(r1.body.loc.id, r2.body.loc.id, 'the location stays');

    assert.equal((await call('GET', `/v2/cob/${txid}`)).body.revisao, 2);
    const rev0 = await call('GET', `/v2/cob/${txid}?revisao=0`);
    assert.equal(rev0.body.revisao, 0);
    assert.equal(rev0.body.valor.original, '110.00');
    assert.equal(rev0.body.devedor.cpf, '12345678909');
    assert.equal((await call('GET', `/v2/cob/${txid}?revisao=1`)).body.valor.original, '120.00');
    assert.equal((await call('GET', `/v2/cob/${txid}?revisao=7`)).status, 404);

    const kept = await svc.service.ctx.db.query<{ revisao: number }>(
      'select r.revisao from charge_revisions r join charges c on c.id = r.charge_id where c.txid = $1 order by r.revisao',
      [txid],
    );
    assert.deepEqual(
      kept.rows.map((r) => r.revisao),
      [0, 1],
      'the superseded revisions are kept; the current one is the charge itself',
    );
  });

  it('revises a charge whose current revision an earlier version had already kept', async () => {
    const txid = 'RevisionTxid000000000000000002';
    await call('PUT', `/v2/cob/${txid}`, cobBody(chave, '110.00'));
    // Earlier versions wrote every revision to charge_revisions as it was created, the current one too.
    await svc.service.ctx.db.query(
      `insert into charge_revisions (charge_id, revisao, status, location_id, body, created_at)
       select id, revisao, status, location_id, body, created_at from charges where txid = $1`,
      [txid],
    );
    assert.equal((await call('PATCH', `/v2/cob/${txid}`, { valor: { original: '130.00' } })).status, 200);
    assert.equal((await call('GET', `/v2/cob/${txid}?revisao=0`)).body.valor.original, '110.00');
    assert.equal((await call('GET', `/v2/cob/${txid}`)).body.valor.original, '130.00');
  });

  it('removes a charge by PATCH status, and then refuses revisions', async () => {
    const txid = 'RemovedTxid0000000000000000001';
    await call('PUT', `/v2/cob/${txid}`, cobBody(chave));
    const mixed = await call('PATCH', `/v2/cob/${txid}`, {
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      solicitacaoPagador: 'x',
    });
    assert.equal(mixed.status, 400);
    const removed = await call('PATCH', `/v2/cob/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
    const after = await call('PATCH', `/v2/cob/${txid}`, { solicitacaoPagador: 'x' });
    assert.equal(after.status, 400);
    assert.match(after.body.type, /CobOperacaoInvalida$/);
  });

  it('answers 404 CobNaoEncontrado for an unknown txid', async () => {
    const res = await call('GET', '/v2/cob/UnknownTxid000000000000000001');
    assert.equal(res.status, 404);
    assert.match(res.body.type, /CobNaoEncontrado$/);
  });

  it('lists with date range, filters and pagination', async () => {
    const fresh = await svc.newParty();
    const t = await fresh.token();
    const create = (body: unknown) => fresh.http.request('POST', '/v2/cob', { token: t, body });
    for (let i = 0; i < 5; i++) await create(cobBody(fresh.chaves[0], `${i + 11}.00`));
    await create(cobBody(fresh.chaves[0], '19.00', { devedor: { cnpj: '12345678000195', nome: 'Empresa' } }));
    const list = (query: string) => fresh.http.request('GET', `/v2/cob?${RANGE}&${query}`, { token: t });

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
    const all = [...page0.body.cobs, ...page1.body.cobs].map((c: { txid: string }) => c.txid);
    assert.equal(new Set(all).size, 6, 'pages do not overlap');

    assert.equal((await list('cnpj=12345678000195')).body.cobs.length, 1);
    assert.equal((await list('cpf=12345678909')).body.cobs.length, 5);
    assert.equal((await list('status=CONCLUIDA')).body.cobs.length, 0);
    assert.equal((await list('locationPresente=true')).body.cobs.length, 6);
    assert.equal((await list('locationPresente=false')).body.cobs.length, 0);
    const empty = await fresh.http.request('GET', '/v2/cob?inicio=2020-01-01T00:00:00Z&fim=2020-01-02T00:00:00Z', {
      token: t,
    });
    assert.equal(empty.body.cobs.length, 0);
  });

  it('refuses bad list queries with CobConsultaInvalida naming the parameter', async () => {
    const cases: [string, string][] = [
      ['fim=2099-01-01T00:00:00Z', 'querystring.inicio'],
      ['inicio=2030-01-01T00:00:00Z&fim=2020-01-01T00:00:00Z', 'fim'],
      [`${RANGE}&cpf=12345678909&cnpj=12345678000195`, 'cpf'],
      [`${RANGE}&paginacao.itensPorPagina=0`, 'querystring.paginacao.itensPorPagina'],
      [`${RANGE}&paginacao.paginaAtual=-1`, 'querystring.paginacao.paginaAtual'],
      ['inicio=ontem&fim=2020-01-01T00:00:00Z', 'querystring.inicio'],
      [`${RANGE}&status=PAGA`, 'querystring.status'],
    ];
    for (const [query, property] of cases) {
      const res = await call('GET', `/v2/cob?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(res.body.type, /CobConsultaInvalida$/, query);
      assert.ok(
        res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === property),
        `${query}: ${JSON.stringify(res.body.violacoes)}`,
      );
    }
  });

  describe('bad input is a 400 naming the property', () => {
    const base = () => cobBody(chave);
    const cases: [string, () => unknown, string][] = [
      ['amount 1.5', () => ({ ...base(), valor: { original: '1.5' } }), 'cob.valor.original'],
      ['amount -1.00', () => ({ ...base(), valor: { original: '-1.00' } }), 'cob.valor.original'],
      ['amount 1e3', () => ({ ...base(), valor: { original: '1e3' } }), 'cob.valor.original'],
      ['amount as number', () => ({ ...base(), valor: { original: 10.5 } }), 'cob.valor.original'],
      ['amount 0.00', () => ({ ...base(), valor: { original: '0.00' } }), 'cob.valor.original'],
      ['amount too many digits', () => ({ ...base(), valor: { original: '12345678901.00' } }), 'cob.valor.original'],
      ['missing valor', () => ({ ...base(), valor: undefined }), 'cob.valor'],
      ['missing chave', () => ({ ...base(), chave: undefined }), 'cob.chave'],
      ['bad CPF check digit', () => ({ ...base(), devedor: { cpf: '12345678900', nome: 'X' } }), 'cob.devedor.cpf'],
      [
        'bad CNPJ check digit',
        () => ({ ...base(), devedor: { cnpj: '12345678000190', nome: 'X' } }),
        'cob.devedor.cnpj',
      ],
      ['CPF with letters', () => ({ ...base(), devedor: { cpf: '1234567890a', nome: 'X' } }), 'cob.devedor.cpf'],
      [
        'cpf and cnpj together',
        () => ({ ...base(), devedor: { cpf: '12345678909', cnpj: '12345678000195', nome: 'X' } }),
        'cob.devedor',
      ],
      ['nome without document', () => ({ ...base(), devedor: { nome: 'X' } }), 'cob.devedor'],
      ['document without nome', () => ({ ...base(), devedor: { cpf: '12345678909' } }), 'cob.devedor.nome'],
      ['unknown field', () => ({ ...base(), desconto: '1.00' }), 'cob.desconto'],
      ['unknown nested field', () => ({ ...base(), valor: { original: '1.00', juros: '1.00' } }), 'cob.valor.juros'],
      ['expiracao zero', () => ({ ...base(), calendario: { expiracao: 0 } }), 'cob.calendario.expiracao'],
      ['expiracao as text', () => ({ ...base(), calendario: { expiracao: '3600' } }), 'cob.calendario.expiracao'],
      [
        'solicitacaoPagador over 140',
        () => ({ ...base(), solicitacaoPagador: 'x'.repeat(141) }),
        'cob.solicitacaoPagador',
      ],
      [
        'nome over 200',
        () => ({ ...base(), devedor: { cpf: '12345678909', nome: 'x'.repeat(201) } }),
        'cob.devedor.nome',
      ],
      ['chave over 77', () => ({ ...base(), chave: 'x'.repeat(78) }), 'cob.chave'],
      ['unknown chave', () => ({ ...base(), chave: 'nao-e-minha@example.com' }), 'cob.chave'],
      [
        'too many infoAdicionais',
        () => ({ ...base(), infoAdicionais: Array.from({ length: 51 }, () => ({ nome: 'a', valor: 'b' })) }),
        'cob.infoAdicionais',
      ],
      ['unknown loc', () => ({ ...base(), loc: { id: 999999 } }), 'cob.loc.id'],
      ['body is an array', () => [base()], 'cob'],
    ];
    for (const [name, body, property] of cases) {
      it(name, async () => {
        const res = await call('POST', '/v2/cob', body());
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.match(res.body.type, /CobOperacaoInvalida$/);
        assert.ok(
          res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === property),
          JSON.stringify(res.body.violacoes),
        );
      });
    }

    it('a txid outside [a-zA-Z0-9]{26,35}', async () => {
      for (const txid of ['short', 'a'.repeat(36), 'invalid-chars-0000000000000000']) {
        const res = await call('PUT', `/v2/cob/${txid}`, base());
        assert.equal(res.status, 400, txid);
        assert.ok(res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === 'params.txid'));
      }
    });

    it('malformed JSON', async () => {
      const res = await svc.demo.http.request('POST', '/v2/cob', { token, rawBody: '{"valor": ' });
      assert.equal(res.status, 400);
      assert.match(res.body.type, /CobOperacaoInvalida$/);
    });

    it('a revision with a bad amount', async () => {
      const created = await call('POST', '/v2/cob', base());
      const res = await call('PATCH', `/v2/cob/${created.body.txid}`, { valor: { original: '1,00' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.violacoes[0].propriedade, 'cob.valor.original');
    });

    it('an unknown route is 404 NaoEncontrado', async () => {
      const res = await call('GET', '/v2/nada');
      assert.equal(res.status, 404);
      assert.match(res.body.type, /NaoEncontrado$/);
    });
  });

  describe('POST /v1/cob (wrapper format)', () => {
    it('creates a charge with infoAdicionais, responseTime and correlationId', async () => {
      const res = await call(
        'POST',
        '/v1/cob',
        cobBody(chave, '5.00', { infoAdicionais: [{ nome: 'Pedido', valor: '42' }] }),
      );
      assert.equal(res.status, 201);
      assert.equal(res.body.valor.original, '5.00');
      assert.equal(typeof res.body.responseTime, 'number');
      assert.equal(typeof res.body.correlationId, 'string');
      assert.deepEqual(res.body.infoAdicionais, [{ nome: 'Pedido', valor: '42' }]);
    });

    it('answers 409 txid_duplicado', async () => {
      const txid = 'V1DuplicateTxid000000000000001';
      assert.equal((await call('POST', '/v1/cob', { ...cobBody(chave), txid })).status, 201);
      const res = await call('POST', '/v1/cob', { ...cobBody(chave), txid });
      assert.equal(res.status, 409);
      assert.equal(res.body.error.title, 'txid_duplicado');
      assert.equal(typeof res.body.correlationId, 'string');
    });

    it('answers 400 documento_bloqueado for a blocked payer document', async () => {
      await svc.service.ctx.db.query(
        "insert into blocked_documents (documento, reason, created_at) values ('52998224725', 'teste', now())",
      );
      const res = await call(
        'POST',
        '/v1/cob',
        cobBody(chave, '5.00', { devedor: { cpf: '52998224725', nome: 'Bloqueado' } }),
      );
      assert.equal(res.status, 400);
      assert.equal(res.body.error.title, 'documento_bloqueado');
    });

    it('names bad properties in violations, with the offending value (a document masked)', async () => {
      const res = await call('POST', '/v1/cob', { ...cobBody(chave), valor: { original: '1.5' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.violations[0].property, 'valor.original');
      assert.equal(res.body.error.violations[0].value, '1.5');
      const abc = await call('POST', '/v1/cob', { ...cobBody(chave), valor: { original: 'abc' } });
      assert.deepEqual(
        abc.body.error.violations.map((v: { property: string; value: unknown }) => [v.property, v.value]),
        [['valor.original', 'abc']],
      );
      const extra = await call('POST', '/v1/cob', { ...cobBody(chave), extra: 7 });
      assert.deepEqual(extra.body.error.violations[0], {
        property: 'extra',
        reason: 'propriedade não permitida.',
        value: 7,
      });
      const missing = await call('POST', '/v1/cob', { valor: { original: '1.00' } });
      assert.ok(
        missing.body.error.violations.every((v: { value: unknown }) => v.value === null),
        'nothing to echo',
      );
      const badCpf = await call(
        'POST',
        '/v1/cob',
        cobBody(chave, '5.00', { devedor: { cpf: '1234567890', nome: 'X' } }),
      );
      const cpf = badCpf.body.error.violations.find((v: { property: string }) => v.property === 'devedor.cpf');
      assert.equal(cpf.value, '**********', 'a document is never echoed in clear');
      const wrongDigits = await call(
        'POST',
        '/v1/cob',
        cobBody(chave, '5.00', { devedor: { cpf: '12345678901', nome: 'X' } }),
      );
      assert.equal(wrongDigits.status, 400, wrongDigits.text);
      assert.equal(wrongDigits.body.error.violations[0].value, '***.456.789-**');
      const long = await call('POST', '/v1/cob', { ...cobBody(chave), solicitacaoPagador: 'x'.repeat(200) });
      assert.equal(long.body.error.violations[0].value, `${'x'.repeat(LIMITS.violationValueShownMaxChars)}…`);
    });

    it('the problem format of /v2 carries the value too', async () => {
      const res = await call('POST', '/v2/cob', { ...cobBody(chave), valor: { original: 'abc' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.violacoes[0].propriedade, 'cob.valor.original');
      assert.equal(res.body.violacoes[0].valor, 'abc');
    });
  });
});
