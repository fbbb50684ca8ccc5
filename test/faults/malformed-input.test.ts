/**
 * Bytes the database cannot store and numbers past its columns, anywhere in a request (body, path, query,
 * authenticated or not), and the framework's own refusals: each is a 4xx in the route family's error
 * format naming what is wrong, never a 500 and never Fastify's default body.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cobBody, startTestService, type TestService } from '../helpers/service.ts';
import { billingApi, type BillingApi } from '../billing/helpers.ts';
import { LIMITS } from '../../src/platform/limits.ts';

const PROBLEM = 'https://pix.bcb.gov.br/api/v2/error/';

describe('faults: malformed input is a 4xx in the family format', () => {
  let svc: TestService;
  let token: string;
  let billing: BillingApi;
  const pix = (
    method: string,
    path: string,
    options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ) => svc.demo.http.request(method, path, { token, ...options });
  const assertProblem = (res: { status: number; body: any; text: string }, status: number, property?: string) => {
    assert.equal(res.status, status, res.text);
    assert.ok(String(res.body?.type).startsWith(PROBLEM), `a Bacen problem object: ${res.text}`);
    if (property)
      assert.ok(
        res.body.violacoes.some((v: any) => v.propriedade === property),
        res.text,
      );
  };

  before(async () => {
    svc = await startTestService();
    token = await svc.demo.token();
    billing = billingApi(svc.demo.http, {
      clientId: svc.demo.clientId,
      clientSecret: svc.demo.clientSecret,
      payeeCode: svc.demo.payeeCode,
      accountId: svc.demo.accountId,
    });
  });
  after(() => svc.close());

  it('NUL and lone surrogates in a body, a path and a query: 400 naming the field', async () => {
    const chave = svc.demo.chaves[0];
    for (const text of ['x\u0000y', 'x\uD800y', 'x\uDC00', '\uDBFF']) {
      const body = cobBody(chave, '12.34', { solicitacaoPagador: text });
      assertProblem(await pix('POST', '/v2/cob', { body }), 400, 'cob.solicitacaoPagador');
      const key = { ...cobBody(chave, '12.34'), infoAdicionais: [{ [`n${text}`]: 'v' }] };
      assert.equal((await pix('POST', '/v2/cob', { body: key })).status, 400);
    }
    assertProblem(await pix('GET', '/v2/cob/abc%00defghijklmnopqrstuvwxyz0'), 400);
    assertProblem(await pix('GET', '/v2/pix?inicio=2020-01-01T00:00:00Z&fim=2020-01-02T00:00:00Z&cpf=%00'), 400);
    // Unauthenticated routes too.
    assert.equal((await svc.anonymous.request('GET', '/qr/v2/abc%00def')).status, 400);
    const pubkey = await svc.anonymous.request('GET', '/v1/pubkey?code=a%00b');
    assert.ok(pubkey.status >= 400 && pubkey.status < 500, pubkey.text);
    assert.ok(pubkey.body.code !== undefined && pubkey.body.error !== undefined, `billing format: ${pubkey.text}`);
  });

  it('numbers past the database: 400 naming the field', async () => {
    const range = 'inicio=2020-01-01T00:00:00Z&fim=2020-01-02T00:00:00Z';
    assertProblem(
      await pix('GET', `/v2/cob?${range}&paginacao.paginaAtual=99999999999999999999`),
      400,
      'querystring.paginacao.paginaAtual',
    );
    assertProblem(await pix('GET', `/v2/cob?${range}&paginacao.paginaAtual=${LIMITS.requestInt4Max + 1}`), 400);
    const body = { ...cobBody(svc.demo.chaves[0], '12.34'), loc: { id: 1e308 } };
    assertProblem(await pix('POST', '/v2/cob', { body }), 400, 'cob.loc.id');
    assertProblem(await pix('GET', `/v2/cob/${'a'.repeat(26)}?revisao=99999999999`), 400);
    for (const id of ['99999999999999999999', '1e308']) {
      const res = await billing.call('GET', `/v1/charge/${id}`);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'validation_error', res.text);
    }
  });

  it("framework refusals are rendered in the family's format, without echoing the path", async () => {
    const invalidJson = await pix('POST', '/v2/cob', {
      rawBody: '{"valor":',
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(invalidJson, 400);
    const wrongType = await pix('POST', '/v2/cob', { rawBody: 'a=b', headers: { 'content-type': 'text/plain' } });
    assert.ok(wrongType.status === 400 || wrongType.status === 415, wrongType.text);
    assert.ok(String(wrongType.body.type).startsWith(PROBLEM), wrongType.text);
    const huge = await pix('POST', '/v2/cob', { rawBody: `{"x":"${'a'.repeat(LIMITS.bodyMaxBytes)}"}` });
    assert.equal(huge.status, 413, huge.text.slice(0, 200));
    assert.ok(String(huge.body.type).startsWith(PROBLEM), huge.text.slice(0, 200));
    const badEncoding = await pix('GET', '/v2/cob/%E0%A4%A');
    assert.equal(badEncoding.status, 400, badEncoding.text);
    assert.ok(String(badEncoding.body.type).startsWith(PROBLEM), badEncoding.text);
    const longPath = `/v2/cob/${'a'.repeat(5000)}`;
    const long = await pix('GET', longPath);
    assert.ok(long.status >= 400 && long.status < 500, long.text.slice(0, 200));
    assert.ok(!long.text.includes('a'.repeat(200)), 'the path is not echoed back whole');
    const unknown = await pix('GET', `/v2/nada/${'b'.repeat(3000)}`);
    assertProblem(unknown, 404);
    assert.ok(!unknown.text.includes('b'.repeat(200)), 'the unknown path is not echoed back whole');
  });
});
