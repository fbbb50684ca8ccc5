/**
 * Outside the sandbox the payer institutions are the operator's list: empty until the operator adds one
 * (PUT /operator/open-finance/participantes/:identificador), then listed and accepted as `idParticipante`.
 * A production node has no Open Finance connector: a Pix payment the payer authorised is refused by name when
 * it falls due, and no money moves (docs/open-finance-pix.md).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/service.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import type { Response } from '../helpers/https-client.ts';
import { waitFor } from '../helpers/wait.ts';

describe('Open Finance participants in production: the operator-managed list', () => {
  let svc: TestService;
  let call: Call;
  let operator: (method: string, url: string, body?: unknown) => Promise<Response>;

  before(async () => {
    svc = await startTestService({ PIXD_ENV: 'production' });
    call = callerWithFreshToken(svc.demo);
    const secret = JSON.parse(fs.readFileSync(path.join(svc.data.dataDir, 'operator.json'), 'utf8')).secret;
    operator = (method, url, body) =>
      svc.anonymous.request(method, url, { body, headers: { authorization: `Bearer ${secret}` } });
  });
  after(() => svc?.close());

  it('lists none, then what the operator adds; removal takes it out', async () => {
    assert.deepEqual((await call('GET', '/v1/participantes')).body, { participantes: [] });
    const bad = await operator('PUT', '/operator/open-finance/participantes/inst-1', {
      ispb: '12345678',
      nome: 'Banco Real',
      cnpj: '11222333000180',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.mensagem, /cnpj/);
    const added = await operator('PUT', '/operator/open-finance/participantes/inst-1', {
      ispb: '12345678',
      nome: 'Banco Real',
      cnpj: '11222333000181',
    });
    assert.equal(added.status, 200, added.text);
    const listed = (await call('GET', '/v1/participantes/')).body.participantes;
    assert.deepEqual(
      listed.map((p: { identificador: string; nome: string }) => [p.identificador, p.nome]),
      [['inst-1', 'Banco Real']],
    );
    assert.equal((await operator('DELETE', '/operator/open-finance/participantes/inst-1')).status, 204);
    assert.equal((await operator('DELETE', '/operator/open-finance/participantes/inst-1')).status, 404);
    assert.deepEqual((await call('GET', '/v1/participantes')).body, { participantes: [] });
  });

  it('an authorised Open Finance Pix is rejeitado with conector_open_finance_ausente; no money moves', async () => {
    const added = await operator('PUT', '/operator/open-finance/participantes/inst-2', {
      ispb: '12345678',
      nome: 'Banco Real',
      cnpj: '11222333000181',
    });
    assert.equal(added.status, 200, added.text);
    const config = await call('PUT', '/v1/config', {
      redirectURL: 'https://app.example/retorno',
      webhookURL: 'https://app.example/of',
    });
    assert.equal(config.status, 200, config.text);
    const saldo = async () => (await call('GET', '/v2/gn/saldo')).body.saldo;
    const before = await saldo();
    const started = await call('POST', '/v1/pagamentos/pix', {
      pagador: { idParticipante: 'inst-2', cpf: '94271564656' },
      pagamento: { valor: '5.00' },
    });
    assert.equal(started.status, 200, started.text);
    const form = new URLSearchParams({ login: '94271564656', senha: '123456', decisao: 'autorizar' }).toString();
    const decided = await svc.anonymous.request('POST', new URL(started.body.redirectURI).pathname, {
      rawBody: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(decided.status, 303, decided.text);
    const { identificadorPagamento } = started.body;
    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
    const refused = await waitFor(async () => {
      const list = await call(
        'GET',
        `/v1/pagamentos/pix?inicio=${today}&fim=${today}&identificador=${identificadorPagamento}`,
      );
      return list.body.pagamentos[0]?.status === 'rejeitado' && list.body.pagamentos[0];
    }, 'rejeitado');
    assert.match(refused.motivo, /^conector_open_finance_ausente: /);
    assert.equal(await saldo(), before);
  });
});
