/**
 * Outside the sandbox the payer institutions are the operator's list: empty until the operator adds one
 * (PUT /operator/open-finance/participantes/:identificador), then listed and accepted as `idParticipante`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/service.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import type { Response } from '../helpers/https-client.ts';

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
});
