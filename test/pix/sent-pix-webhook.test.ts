/**
 * The webhook of a sent Pix: a scheduled Pix naming the sender's key notifies that key's webhook when it
 * is sent, shaped by the key's `envio.webhook.notificacao` settings at delivery. Real local receiver.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { LIMITS } from '../../src/platform/limits.ts';

const MINUTE = 60;

describe('sent Pix webhook (scheduled Pix)', () => {
  let svc: TestService;
  let receiver: Receiver;
  let plain: Party;
  let configured: Party;
  let plainApi: WebhookApi;
  let configuredApi: WebhookApi;
  const iso = (secondsFromNow: number) => new Date(svc.clock.nowMs() + secondsFromNow * 1000).toISOString();
  const schedule = (api: WebhookApi, body: Record<string, unknown>) => api.call('POST', '/sandbox/pix/schedules', body);
  const fund = async (party: Party, api: WebhookApi, valor: string) =>
    assert.equal((await api.call('POST', '/sandbox/pix/pay', { chave: party.chaves[0], valor })).status, 201);

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    // Every party before the clock moves (certificates are issued on the service clock).
    plain = await svc.newParty();
    configured = await svc.newParty();
    plainApi = webhookApi(plain);
    configuredApi = webhookApi(configured);
  });
  after(async () => {
    await receiver.close();
    await svc.close();
  });

  it('refuses a sender key that is not an active key of the paying account', async () => {
    const res = await schedule(plainApi, {
      chave: configured.chaves[0],
      valor: '1.00',
      dataAgendamento: iso(MINUTE),
      favorecido: { nome: 'X', chave: 'x@example.com' },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/AgendamentoInvalido');
    assert.equal(res.body.violacoes[0].propriedade, 'chave');
  });

  it('notifies the sender key when the Pix is sent: defaults show the receiver, tarifa/favorecido settings reshape it; rejected or keyless schedules send nothing', async () => {
    await plainApi.registerPix(`${receiver.url}/plain`);
    await configuredApi.registerPix(`${receiver.url}/configured`);
    const config = await configuredApi.call('PUT', '/v2/gn/config', {
      pix: {
        receberSemChave: true,
        chaves: {
          [configured.chaves[0]]: {
            recebimento: { txidObrigatorio: false, qrCodeEstatico: { recusarTodos: false } },
            envio: { webhook: { notificacao: { tarifa: true, favorecido: false } } },
          },
        },
      },
    });
    assert.equal(config.status, 201, config.text);
    await fund(plain, plainApi, '50.00');
    await fund(configured, configuredApi, '50.00');

    const byKey = await schedule(plainApi, {
      chave: plain.chaves[0],
      valor: '40.00',
      dataAgendamento: iso(MINUTE),
      favorecido: { nome: 'Fornecedor Um', chave: 'fornecedor@example.com' },
    });
    assert.equal(byKey.status, 201, byKey.text);
    const keyless = await schedule(plainApi, {
      valor: '1.00',
      dataAgendamento: iso(MINUTE),
      favorecido: { nome: 'Sem chave', chave: 'outro@example.com' },
    });
    assert.equal(keyless.status, 201, keyless.text);
    const byBank = await schedule(configuredApi, {
      chave: configured.chaves[0],
      valor: '30.00',
      dataAgendamento: iso(MINUTE),
      favorecido: { nome: 'Fornecedor Dois', contaBanco: { ispb: '12345678', agencia: '0001', conta: '9876543' } },
    });
    assert.equal(byBank.status, 201, byBank.text);
    const tooMuch = await schedule(configuredApi, {
      chave: configured.chaves[0],
      valor: '30.00',
      dataAgendamento: iso(2 * MINUTE),
      favorecido: { nome: 'Caro', chave: 'caro@example.com' },
    });
    assert.equal(tooMuch.status, 201, tooMuch.text);

    svc.advance(MINUTE + 1);
    // The due schedules are processed at this instant (their send is queued from it) before time moves on.
    await outboxIdle(svc);
    svc.advance(LIMITS.scheduledPixSendDelaySeconds);
    const [toPlain] = await receiver.waitForCalls(1, '/plain/pix');
    const [toConfigured] = await receiver.waitForCalls(1, '/configured/pix');

    // Defaults (envio: tarifa false, favorecido true): the receiver known to the schedule, no fee.
    assert.equal(toPlain.body.pix.length, 1);
    const sentAt = toPlain.body.pix[0].horario;
    assert.ok(Date.parse(sentAt) >= Date.parse(byKey.body.scheduling_date), 'sent at or after its date');
    assert.deepEqual(toPlain.body.pix[0], {
      endToEndId: byKey.body.end_to_end_id,
      valor: '40.00',
      horario: sentAt,
      chave: plain.chaves[0],
      gnExtras: { favorecido: { nome: 'Fornecedor Um', chave: 'fornecedor@example.com' } },
    });
    // envio {tarifa: true, favorecido: false}: the fee (none charged), no receiver.
    assert.deepEqual(toConfigured.body.pix[0], {
      endToEndId: byBank.body.end_to_end_id,
      valor: '30.00',
      horario: toConfigured.body.pix[0].horario,
      chave: configured.chaves[0],
      gnExtras: { tarifa: '0.00' },
    });

    // The third schedule is rejected (20.00 left): nothing is sent; neither for the keyless one.
    svc.advance(MINUTE);
    await outboxIdle(svc);
    svc.advance(LIMITS.scheduledPixSendDelaySeconds);
    await waitFor(
      async () =>
        (
          await configuredApi.call(
            'GET',
            `/v1/pix/schedules?inicio=${encodeURIComponent(iso(-3600))}&fim=${encodeURIComponent(iso(3600))}`,
          )
        ).body.data.some((s: { status: string }) => s.status === 'rejected'),
      'rejected',
    );
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/configured/pix').length, 1, 'a rejected schedule sends no webhook');
    assert.equal(receiver.callsTo('/plain/pix').length, 1, 'a schedule without chave sends no webhook');
    const delivered = await waitFor(async () => {
      const d = (await plainApi.deliveries()).find((x) => x.assunto === byKey.body.end_to_end_id);
      return d?.situacao === 'entregue' && d;
    }, 'delivery recorded');
    assert.equal(delivered.tentativas.length, 1);
  });
});
