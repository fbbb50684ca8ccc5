/**
 * Limits, scopes and production behaviour of money out (issue 14, items 3 and 8): the 500 requests per
 * second limit on the send, the BR Code payment and the MED defence; the SDK's scopes; and production, with
 * no settlement connector, refusing receivers outside pixd with a named error (and, with no bill-payment
 * connector, bills of other institutions: docs/bill-payments.md).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { burst } from '../helpers/burst.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { bankBarcode } from '../../src/platform/febraban.ts';
import { brasiliaDate } from '../../src/platform/calendar.ts';

const LIMIT = 500;

describe('money out: rate limits and scopes', () => {
  let svc: TestService;
  let wallMs = Date.UTC(2026, 0, 1);
  before(async () => {
    svc = await startTestService({}, { wallClockMs: () => wallMs });
  });
  after(() => svc?.close());

  for (const [method, path] of [
    ['PUT', '/v2/gn/pix/limite1'],
    ['PUT', '/v3/gn/pix/limite1'],
    ['PUT', '/v2/gn/pix/limite1/qrcode'],
    ['POST', '/v2/gn/infracoes/00000000-0000-4000-8000-000000000000/defesa'],
  ]) {
    it(`${method} ${path}: 500 per second per application, then 429 with Retry-After`, async () => {
      wallMs += 1000;
      const party = await svc.newParty();
      const token = await party.token();
      // Invalid bodies still count: the limit is checked before validation, as at a gateway.
      const { statuses, retryAfter } = await burst(LIMIT + 10, () =>
        party.http.request(method, path, { token, body: {} }),
      );
      assert.equal(statuses.filter((s) => s === 400).length, LIMIT, statuses.filter((s) => s !== 400).join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 10);
      assert.ok(retryAfter.every((v) => v === '1'));
    });
  }

  it('the scopes as the SDK names them: pix.send, gn.pix.send.read, gn.infractions.read/write', async () => {
    const party = await svc.newParty({ scopes: ['gn.balance.read'] });
    const token = await party.token();
    const body = { valor: '1.00', pagador: { chave: party.chaves[0] }, favorecido: { chave: 'a@example.com' } };
    for (const [method, path, payload] of [
      ['PUT', '/v2/gn/pix/semescopo', body],
      ['PUT', '/v2/gn/pix/semescopo/qrcode', { pagador: { chave: party.chaves[0] }, pixCopiaECola: 'x' }],
      ['GET', '/v2/gn/pix/enviados/id-envio/semescopo', undefined],
      ['GET', `/v2/gn/infracoes?inicio=2026-01-01T00:00:00Z&fim=2026-01-02T00:00:00Z`, undefined],
      ['POST', '/v2/gn/infracoes/abc/defesa', { analise: 'aceito', justificativa: 'x' }],
    ] as const) {
      const res = await party.http.request(method, path, { token, body: payload });
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
    }
  });
});

describe('money out in production', () => {
  let svc: TestService;
  let receiver: Receiver;
  before(async () => {
    svc = await startTestService({ PIXD_ENV: 'production', PIXD_WEBHOOK_ALLOW: '127.0.0.0/8' });
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it('refuses a receiver outside pixd with 422 destino_externo_indisponivel until a settlement connector exists', async () => {
    const api = webhookApi(svc.demo);
    await api.registerPix(`${receiver.url}/prod`);
    const res = await api.call('PUT', '/v2/gn/pix/prod1', {
      valor: '1.00',
      pagador: { chave: svc.demo.chaves[0] },
      favorecido: { chave: 'fornecedor@example.com' },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.nome, 'destino_externo_indisponivel');
    assert.equal((await api.call('POST', '/sandbox/infracoes', {})).status, 404, 'no sandbox tools in production');
  });

  it('decodes a bill of another bank but refuses to pay it by name: no bill-payment connector', async () => {
    const api = webhookApi(svc.demo);
    const barcode = bankBarcode({ bankCode: '341', dueDate: null, amountCents: 5_000, freeField: '1'.repeat(25) });
    const detail = await api.call('GET', `/v1/codBarras/${barcode}`);
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.body.beneficiario, null, 'no registry to ask');
    assert.equal(detail.body.informacoesPagamento.podeSerPago, false);
    const paid = await api.call('POST', `/v1/codBarras/${barcode}`, {
      valor: 5_000,
      dataPagamento: brasiliaDate(svc.clock.now()),
    });
    assert.equal(paid.status, 422, paid.text);
    assert.equal(paid.body.nome, 'pagamento_recusado');
    assert.match(paid.body.mensagem, /Sem conector de pagamento de contas/);
  });
});
