/** Split configurations: create, revise, read; every rule on shares and beneficiaries; scopes and rate limit. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { completeCpf } from '../../src/platform/documents.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { PROBLEM_TYPE_BASE } from '../../src/platform/errors.ts';
import { configBody, favorecido, newBeneficiary, type Beneficiary } from './split-fixtures.ts';
import { overLimit } from '../helpers/burst.ts';

describe('split configurations', () => {
  let svc: TestService;
  let receiver: Party;
  let token: string;
  let a: Beneficiary;
  let b: Beneficiary;
  let wallMs = Date.UTC(2026, 0, 1);
  const call = (method: string, path: string, body?: unknown) => receiver.http.request(method, path, { token, body });
  const percent = (extra: Record<string, unknown> = {}) =>
    configBody(
      'porcentagem',
      '60.00',
      [
        [a, '15.00'],
        [b, '25.00'],
      ],
      extra,
    );

  before(async () => {
    // Rate-limit windows follow this frozen wall clock, so the burst below is counted in one second.
    svc = await startTestService({}, { wallClockMs: () => wallMs });
    receiver = await svc.newParty();
    token = await receiver.token();
    a = await newBeneficiary(svc);
    b = await newBeneficiary(svc, { documento: completeCpf('529982247') });
  });
  after(() => svc.close());

  /** The violations of a 400 SplitConfigOperacaoInvalida, as "property: reason" lines. */
  const refused = async (body: unknown, path = '/v2/gn/split/config', method = 'POST') => {
    const res = await call(method, path, body);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.type, `${PROBLEM_TYPE_BASE}/SplitConfigOperacaoInvalida`);
    assert.match(res.headers['content-type'] as string, /application\/problem\+json/);
    return (res.body.violacoes as { propriedade: string; razao: string }[]).map((v) => `${v.propriedade}: ${v.razao}`);
  };

  it('POST assigns an id and a txid, answers 201 ATIVA revisao 0, and GET reads it back', async () => {
    const res = await call('POST', '/v2/gn/split/config', percent());
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, new RegExp(`^[a-zA-Z0-9]{${LIMITS.splitConfigIdAssignedChars}}$`));
    assert.match(res.body.txid, /^[a-zA-Z0-9]{25}$/, 'a txid a static QR code can carry');
    assert.equal(res.body.status, 'ATIVA');
    assert.equal(res.body.revisao, 0);
    assert.deepEqual(res.body.split.repasses[1].favorecido, { cpf: b.documento, conta: b.conta }, 'a CPF beneficiary');
    const { id, txid, status, revisao, ...sent } = res.body;
    assert.deepEqual(sent, percent());
    const read = await call('GET', `/v2/gn/split/config/${id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, res.body);
    assert.equal((await call('GET', '/v2/gn/split/config/NoSuchConfig')).status, 404);
  });

  it("PUT creates with the caller's id, then writes revisions; old revisions stay readable", async () => {
    const path = '/v2/gn/split/config/minhaConfig01';
    const first = await call('PUT', path, percent({ txid: 'LOJA01' }));
    assert.equal(first.status, 201, first.text);
    assert.deepEqual([first.body.id, first.body.revisao, first.body.txid], ['minhaConfig01', 0, 'LOJA01']);
    const revised = await call('PUT', path, configBody('porcentagem', '50.00', [[a, '50.00']], { descricao: 'Nova' }));
    assert.equal(revised.status, 201, revised.text);
    assert.equal(revised.body.revisao, 1);
    assert.equal(revised.body.txid, 'LOJA01', "a revision without txid keeps the configuration's txid");
    const latest = (await call('GET', path)).body;
    assert.equal(latest.revisao, 1);
    assert.equal(latest.descricao, 'Nova');
    const old = (await call('GET', `${path}?revisao=0`)).body;
    assert.equal(old.revisao, 0);
    assert.equal(old.split.repasses.length, 2);
    const missing = await call('GET', `${path}?revisao=2`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.type, `${PROBLEM_TYPE_BASE}/SplitConfigNaoEncontrada`);
    assert.equal((await call('GET', `${path}?revisao=x`)).body.type, `${PROBLEM_TYPE_BASE}/SplitConsultaInvalida`);
    const moved = await call('PUT', path, percent({ txid: 'LOJA02' }));
    assert.equal(moved.body.txid, 'LOJA02');
    assert.deepEqual(
      await refused(percent({ txid: 'LOJA02' })),
      ['config.txid: txid já utilizado.'],
      'one configuration per txid',
    );
    assert.equal((await call('PUT', '/v2/gn/split/config/has-dash', percent())).status, 400);
  });

  it('accepts fixed amounts (the receiver keeps the rest) and percentages adding up to exactly 100.00', async () => {
    const fixed = await call(
      'POST',
      '/v2/gn/split/config',
      configBody('fixo', '50.00', [
        [a, '5.00'],
        [b, '10.00'],
      ]),
    );
    assert.equal(fixed.status, 201, fixed.text);
    const allOut = await call(
      'POST',
      '/v2/gn/split/config',
      configBody('porcentagem', '0.00', [
        [a, '99.99'],
        [b, '0.01'],
      ]),
    );
    assert.equal(allOut.status, 201, 'the receiver may keep nothing');
    assert.deepEqual(
      await refused(
        configBody('porcentagem', '60.00', [
          [a, '15.00'],
          [b, '24.99'],
        ]),
      ),
      ['config.split: as porcentagens somam 99.99; devem somar exatamente 100.00.'],
    );
    assert.deepEqual(
      await refused(
        configBody('porcentagem', '60.00', [
          [a, '15.00'],
          [b, '25.01'],
        ]),
      ),
      ['config.split: as porcentagens somam 100.01; devem somar exatamente 100.00.'],
    );
    assert.deepEqual(await refused(configBody('porcentagem', '100.01', [[a, '0.01']])), [
      'config.split.minhaParte.valor: porcentagem acima de 100.00.',
    ]);
    assert.deepEqual(await refused(configBody('porcentagem', '100.00', [[a, '0.00']])), [
      'config.split.repasses.0.valor: o repasse deve ser maior que zero.',
    ]);
    assert.deepEqual(await refused(configBody('fixo', '1.00', [[a, '0.00']])), [
      'config.split.repasses.0.valor: o repasse deve ser maior que zero.',
    ]);
    const mixed = configBody('porcentagem', '60.00', [
      [a, '15.00'],
      [b, '25.00'],
    ]);
    mixed.split.repasses[1].tipo = 'fixo';
    assert.deepEqual(await refused(mixed), [
      'config.split.repasses.1.tipo: todas as partes devem ter o mesmo tipo (porcentagem).',
    ]);
  });

  it('refuses what it cannot honour: deferred posting, other fee divisions, unknown tipos and fields', async () => {
    assert.deepEqual(await refused(percent({ lancamento: { imediato: false } })), [
      'config.lancamento.imediato: somente lançamento imediato (true) é suportado.',
    ]);
    const tarifa = percent();
    (tarifa.split as Record<string, unknown>).divisaoTarifa = 'proporcional';
    assert.ok((await refused(tarifa)).every((v) => v.startsWith('config.split.divisaoTarifa')));
    const tipo = percent();
    (tipo.split.minhaParte as Record<string, unknown>).tipo = 'outro';
    assert.ok((await refused(tipo)).every((v) => v.startsWith('config.split.minhaParte.tipo')));
    assert.deepEqual(await refused(percent({ extra: 1 })), ['config.extra: propriedade não permitida.']);
    assert.deepEqual(await refused({ lancamento: { imediato: true } }), ['config.split: propriedade obrigatória.']);
  });

  it('accepts beneficiaries only as existing accounts of this service, never the receiver, each once', async () => {
    const self = await newBeneficiary(svc);
    const selfToken = await self.party.token();
    const asSelf = await self.party.http.request('POST', '/v2/gn/split/config', {
      token: selfToken,
      body: configBody('porcentagem', '50.00', [[self, '50.00']]),
    });
    assert.equal(asSelf.status, 400);
    assert.deepEqual(
      asSelf.body.violacoes.map((v: { razao: string }) => v.razao),
      ['não é possível repassar para a própria conta.'],
    );
    const unknown = { documento: a.documento, conta: '1' };
    assert.deepEqual(await refused(configBody('porcentagem', '50.00', [[unknown as Beneficiary, '50.00']])), [
      'config.split.repasses.0.favorecido: o favorecido não é uma conta deste serviço (conta e documento não conferem).',
    ]);
    const wrongDocument = { documento: b.documento, conta: a.conta };
    assert.equal(
      (await refused(configBody('porcentagem', '50.00', [[wrongDocument as Beneficiary, '50.00']]))).length,
      1,
    );
    const both = configBody('porcentagem', '50.00', [[a, '50.00']]);
    both.split.repasses[0].favorecido = { ...favorecido(a), cpf: '52998224725' };
    assert.deepEqual(await refused(both), ['config.split.repasses.0.favorecido: informe cpf ou cnpj (um deles).']);
    const neither = configBody('porcentagem', '50.00', [[a, '50.00']]);
    neither.split.repasses[0].favorecido = { conta: a.conta };
    assert.deepEqual(await refused(neither), ['config.split.repasses.0.favorecido: informe cpf ou cnpj (um deles).']);
    assert.deepEqual(
      await refused(
        configBody('porcentagem', '50.00', [
          [a, '25.00'],
          [a, '25.00'],
        ]),
      ),
      ['config.split.repasses.1.favorecido: favorecido repetido; cada conta aparece uma vez.'],
    );
    assert.ok(
      (await refused(configBody('porcentagem', '100.00', []))).some((v) => v.startsWith('config.split.repasses')),
      'at least one beneficiary',
    );
  });

  it(`allows at most ${LIMITS.splitRepassesMaxItems} beneficiaries`, async () => {
    const many = await Promise.all(Array.from({ length: LIMITS.splitRepassesMaxItems }, () => newBeneficiary(svc)));
    const twenty = configBody(
      'porcentagem',
      '80.00',
      many.map((m) => [m, '1.00'] as [Beneficiary, string]),
    );
    const ok = await call('POST', '/v2/gn/split/config', twenty);
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.split.repasses.length, LIMITS.splitRepassesMaxItems);
    const tooMany = configBody(
      'porcentagem',
      '79.00',
      [...many, a].map((m) => [m, '1.00'] as [Beneficiary, string]),
    );
    assert.ok((await refused(tooMany)).every((v) => v.startsWith('config.split.repasses')));
  });

  it('keeps configurations per account, and requires gn.split.write / gn.split.read', async () => {
    const created = (await call('PUT', '/v2/gn/split/config/compartilhado', percent())).body;
    const other = await svc.newParty();
    const otherToken = await other.token();
    assert.equal(
      (await other.http.request('GET', '/v2/gn/split/config/compartilhado', { token: otherToken })).status,
      404,
      'another account cannot see it',
    );
    const theirs = await other.http.request('PUT', '/v2/gn/split/config/compartilhado', {
      token: otherToken,
      body: percent(),
    });
    assert.equal(theirs.status, 201);
    assert.equal(theirs.body.revisao, 0, 'the same id in another account is another configuration');
    assert.notEqual(theirs.body.txid, created.txid);
    const readOnly = await svc.newParty({ scopes: ['gn.split.read'] });
    const readToken = await readOnly.token();
    const denied = await readOnly.http.request('POST', '/v2/gn/split/config', { token: readToken, body: percent() });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.type, `${PROBLEM_TYPE_BASE}/AcessoNegado`);
    assert.equal(
      (
        await readOnly.http.request('DELETE', '/v2/gn/split/cob/abcdefghijklmnopqrstuvwxyz123/vinculo', {
          token: readToken,
        })
      ).status,
      403,
    );
    const writeOnly = await svc.newParty({ scopes: ['gn.split.write'] });
    assert.equal(
      (await writeOnly.http.request('GET', '/v2/gn/split/config/compartilhado', { token: await writeOnly.token() }))
        .status,
      403,
    );
  });

  it('rate-limits POST config, PUT config and both PUT links at 500 per second; reads are not limited', async () => {
    const limited = await svc.newParty();
    const limitedToken = await limited.token();
    const txid = 'abcdefghijklmnopqrstuvwxyz123';
    const endpoints: [string, string][] = [
      ['POST', '/v2/gn/split/config'],
      ['PUT', '/v2/gn/split/config/qualquer'],
      ['PUT', `/v2/gn/split/cob/${txid}/vinculo/qualquer`],
      ['PUT', `/v2/gn/split/cobv/${txid}/vinculo/qualquer`],
    ];
    for (const [method, path] of endpoints) {
      const result = await overLimit(() =>
        limited.http.request(method, path, {
          token: limitedToken,
          body: method === 'PUT' && path.includes('vinculo') ? undefined : {},
        }),
      );
      assert.equal(result.statuses.length, LIMITS.rateLimitRequestsPerSecond + 1);
      assert.equal(result.count(429), 1, `${method} ${path} is limited`);
    }
    const reads = await Promise.all(
      Array.from({ length: 20 }, () =>
        limited.http.request('GET', '/v2/gn/split/config/qualquer', { token: limitedToken }),
      ),
    );
    assert.ok(
      reads.every((r) => r.status === 404),
      'GET is not limited',
    );
    wallMs += 1000;
    assert.equal(
      (await limited.http.request('POST', '/v2/gn/split/config', { token: limitedToken, body: {} })).status,
      400,
      'the next second has a fresh budget',
    );
  });
});
