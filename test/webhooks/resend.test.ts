/** POST /v2/gn/webhook/reenviar: one attempt per webhook, returns as one webhook, the window rules. */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';

const DAY_S = 86_400;

describe('webhook resend', () => {
  let svc: TestService;
  let receiver: Receiver;
  let api: WebhookApi;
  const resend = (e2eids: string[], tipo = 'PIX_RECEBIDO') =>
    api.call('POST', '/v2/gn/webhook/reenviar', { tipo, e2eids });
  const callsFor = (e2eid: string) =>
    receiver.callsTo('/resend/pix').filter((c) => c.body.pix?.[0]?.endToEndId === e2eid);

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    api = webhookApi(await svc.newParty());
    await api.registerPix(`${receiver.url}/resend`);
  });
  afterEach(() => svc.clock.setOffsetMs(0));
  after(async () => {
    await receiver.close();
    await svc.close();
  });

  it('sends the webhook again, once, with the whole refunds array when named by Pix or by refunds', async () => {
    const pix = await api.payNewCharge('80.00');
    await waitFor(async () => callsFor(pix.endToEndId).length === 1, 'original delivery');
    const r1 = await api.call('PUT', `/v2/pix/${pix.endToEndId}/devolucao/a1`, { valor: '1.00' });
    const r2 = await api.call('PUT', `/v2/pix/${pix.endToEndId}/devolucao/a2`, { valor: '2.00' });
    assert.equal(r1.status, 201, r1.text);
    await waitFor(async () => callsFor(pix.endToEndId).length === 3, 'one webhook per settled refund');

    const res = await resend([pix.endToEndId, r1.body.rtrId, r2.body.rtrId]);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.reenvios, 1, 'a Pix and its refunds: one webhook');
    const calls = await waitFor(
      async () => callsFor(pix.endToEndId).length === 4 && callsFor(pix.endToEndId),
      'resent',
    );
    const resent = calls[3];
    assert.equal(resent.body.pix[0].devolucoes.length, 2, 'the whole refunds array');
    assert.deepEqual(resent.body.pix[0].devolucoes.map((d: { id: string }) => d.id).sort(), ['a1', 'a2']);
  });

  it('makes one attempt only: a resend to a receiver that is down is not rescheduled', async () => {
    const pix = await api.payNewCharge('81.00');
    await waitFor(async () => callsFor(pix.endToEndId).length === 1, 'original delivery');
    await receiver.down();
    try {
      assert.equal((await resend([pix.endToEndId])).status, 202);
      const failed = await waitFor(async () => {
        const d = (await api.deliveries('webhook.pix.resend')).find((x) => x.assunto === pix.endToEndId);
        return d?.situacao === 'falhou' && d;
      }, 'resend attempted once');
      assert.equal(failed.tentativas.length, 1);
      assert.equal(failed.proximaTentativa, null);
    } finally {
      await receiver.up();
    }
    svc.advance(DAY_S);
    await outboxIdle(svc);
    assert.equal(callsFor(pix.endToEndId).length, 1, 'never retried');
  });

  it("refuses unknown ids, other accounts' Pix, other tipos and transactions older than 30 days, naming each", async () => {
    const pix = await api.payNewCharge('82.00');
    const other = webhookApi(await svc.newParty());
    const unknown = await resend([pix.endToEndId, 'E99999009202401011200ABCDEFGHIJK']);
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.type, /WebhookReenvioInvalido$/);
    assert.equal(unknown.body.violacoes.length, 1);
    assert.equal(unknown.body.violacoes[0].propriedade, 'e2eids[1]');
    const foreign = await other.call('POST', '/v2/gn/webhook/reenviar', {
      tipo: 'PIX_RECEBIDO',
      e2eids: [pix.endToEndId],
    });
    assert.equal(foreign.status, 400);
    const tipo = await resend([pix.endToEndId], 'PIX_ENVIADO');
    assert.equal(tipo.status, 400);
    assert.equal(tipo.body.violacoes[0].propriedade, 'tipo');
    assert.equal((await resend([])).status, 400);
  });

  // Tokens and certificates are checked on the service clock too, so the payments are made in the past
  // (clock moved back) and the resend asked now, rather than the clock moved forward.
  const payAt = async (offsetMs: number, original: string) => {
    svc.clock.setOffsetMs(offsetMs);
    try {
      return await api.payNewCharge(original);
    } finally {
      svc.clock.setOffsetMs(0);
    }
  };

  it('applies the 30-day window and the start date on the service clock', async () => {
    const old = await payAt(Date.parse('2023-12-01T12:00:00Z') - Date.now(), '84.00');
    const beforeStart = await resend([old.endToEndId]);
    assert.equal(beforeStart.status, 400, beforeStart.text);
    assert.match(beforeStart.body.violacoes[0].razao, /anterior a 2023-12-27T10:00:00-03:00/);

    const inside = await payAt(-(30 * DAY_S * 1000 - 60_000), '85.00');
    const outside = await payAt(-(30 * DAY_S * 1000 + 60_000), '86.00');
    assert.equal((await resend([inside.endToEndId])).status, 202, '30 days minus a minute: still allowed');
    const refused = await resend([inside.endToEndId, outside.endToEndId]);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.violacoes.length, 1);
    assert.equal(refused.body.violacoes[0].propriedade, 'e2eids[1]');
    assert.match(refused.body.violacoes[0].razao, /mais de 30 dias/);
  });

  it('refuses a Pix whose key has no webhook', async () => {
    const other = webhookApi(await svc.newParty());
    const pix = await other.payNewCharge('85.00');
    const res = await other.call('POST', '/v2/gn/webhook/reenviar', { tipo: 'PIX_RECEBIDO', e2eids: [pix.endToEndId] });
    assert.equal(res.status, 400);
    assert.match(res.body.violacoes[0].razao, /nenhum webhook/);
  });
});
