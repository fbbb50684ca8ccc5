/**
 * Delivery of Pix, recurrence and automatic-charge webhooks to real receivers: routing, body, failures
 * and retries on the moved clock, order per charge, at-least-once across a restart.
 */
// suite: serial (a 400 ms delivery timeout): run alone, after the concurrent files; see scripts/test.sh.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { outboxIdle, waitFor, wallWindowPassed } from '../helpers/wait.ts';
import { setWebhookSettings, webhookSettings } from '../../src/platform/webhooks/settings.ts';
import { WEBHOOK_LOOKUP_SHARED_MS } from '../../src/pix/webhook/events.ts';
import { brasiliaDate, fromEpochDay, isBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import { recBody } from '../pix/rec-fixtures.ts';
import { LIMITS } from '../../src/platform/limits.ts';

/** The first retry of a Pix webhook is 1 minute after the failure (LIMITS.webhookRetryScheduleMinutes). */
const FIRST_RETRY_S = 61;
/**
 * A hanging receiver times out after this long, only while a test makes one hang: a delivery to a receiver
 * that answers keeps the production timeout, which a busy machine cannot miss.
 */
const HANG_TIMEOUT_MS = 400;
const DEFAULT_TIMEOUT_MS = webhookSettings().deliveryTimeoutMs;
const hangTimesOut = (short: boolean) =>
  setWebhookSettings({ deliveryTimeoutMs: short ? HANG_TIMEOUT_MS : DEFAULT_TIMEOUT_MS });

describe('webhook delivery', () => {
  let svc: TestService;
  let receiver: Receiver;
  const newApi = async (): Promise<WebhookApi> => webhookApi(await svc.newParty());
  const attemptsOf = async (api: WebhookApi, subject: string) =>
    (await api.deliveries()).find((d) => d.assunto === subject);

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
  });
  // Certificates of new parties are issued on the service clock: put it back so the next party's is valid now.
  afterEach(() => svc.clock.setOffsetMs(0));
  after(async () => {
    await receiver.close();
    await svc.close();
  });

  it('delivers a paid charge to the registered URL with /pix appended, query kept, over mutual TLS', async () => {
    const api = await newApi();
    await api.registerPix(`${receiver.url}/a/webhook/?hmac=abc`);
    const pix = await api.payNewCharge();
    const [callback] = await receiver.waitForCalls(1, '/a/webhook/pix');
    assert.equal(callback.path, '/a/webhook/pix?hmac=abc');
    assert.equal(callback.clientCertificate, true);
    assert.equal(callback.body.pix.length, 1);
    assert.equal(callback.body.pix[0].endToEndId, pix.endToEndId);
    assert.equal(callback.body.pix[0].txid, pix.txid);
    assert.deepEqual(callback.body.pix[0].devolucoes, []);
    assert.ok(callback.headers['x-pixd-delivery-id']);
    const delivery = await waitFor(async () => {
      const d = await attemptsOf(api, pix.endToEndId);
      return d?.situacao === 'entregue' && d;
    }, 'delivery recorded');
    assert.equal(delivery.tentativas.length, 1);
    assert.equal(delivery.tentativas[0].statusHttp, 200);
    assert.equal(typeof delivery.tentativas[0].latenciaMs, 'number');
    assert.equal(delivery.tentativas[0].url, `${receiver.url}/a/webhook/pix?hmac=abc`);
  });

  it("records the body sent and the receiver's answer, cut to LIMITS.webhookAttemptBodyBytes, NUL replaced", async () => {
    const api = await newApi();
    await api.registerPix(`${receiver.url}/bodies`);
    // 3,001 bytes: a NUL (PostgreSQL text refuses it), then two-byte characters, the cut falling inside one.
    receiver.behaviour = { status: 200, body: `\0${'ç'.repeat(1500)}` };
    try {
      const pix = await api.payNewCharge();
      const [callback] = await receiver.waitForCalls(1, '/bodies/pix');
      const delivery = await waitFor(async () => {
        const d = await attemptsOf(api, pix.endToEndId);
        return d?.situacao === 'entregue' && d;
      }, 'delivery recorded');
      const [attempt] = delivery.tentativas;
      assert.equal(LIMITS.webhookAttemptBodyBytes, 2048);
      assert.deepEqual(attempt.resposta, { corpo: `\uFFFD${'ç'.repeat(1023)}\uFFFD`, bytes: 3001 });
      assert.deepEqual(JSON.parse(attempt.enviado.corpo), callback.body);
      assert.equal(attempt.enviado.bytes, Buffer.byteLength(JSON.stringify(callback.body)));
    } finally {
      receiver.behaviour = { status: 200 };
    }
  });

  it('does not append the suffix when the URL ends in ignorar=, and skips Pix without txid', async () => {
    const api = await newApi();
    await api.registerPix(`${receiver.url}/plain?hmac=xyz&ignorar=`);
    const pix = await api.payNewCharge();
    await waitFor(async () => receiver.calls.some((c) => c.body?.pix?.[0]?.endToEndId === pix.endToEndId), 'callback');
    const callback = receiver.calls.find((c) => c.body?.pix?.[0]?.endToEndId === pix.endToEndId)!;
    assert.equal(callback.path, '/plain?hmac=xyz&ignorar=');

    const before = receiver.calls.length;
    const party = await api.call('POST', '/sandbox/pix/pay', {
      chave: (await api.call('GET', '/v2/webhook?inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z')).body
        .webhooks[0].chave,
      valor: '3.00',
    });
    assert.equal(party.status, 201, party.text);
    const skipped = await waitFor(async () => {
      const d = await attemptsOf(api, party.body.endToEndId);
      return d?.situacao === 'nao_enviado' && d;
    }, 'Pix without txid handled');
    assert.equal(skipped.tentativas.length, 0);
    assert.equal(receiver.calls.length, before, 'a Pix not tied to a txid is not notified');
  });

  it('follows the key settings: pixSemTxid notifies Pix without txid, pagador false leaves the payer out', async () => {
    const party = await svc.newParty();
    const api = webhookApi(party);
    await api.registerPix(`${receiver.url}/settings`);
    const chave = party.chaves[0];
    const config = await api.call('PUT', '/v2/gn/config', {
      pix: {
        receberSemChave: true,
        chaves: {
          [chave]: {
            recebimento: {
              txidObrigatorio: false,
              qrCodeEstatico: { recusarTodos: false },
              webhook: { notificacao: { tarifa: false, pagador: false }, notificar: { pixSemTxid: true } },
            },
          },
        },
      },
    });
    assert.equal(config.status, 201, config.text);
    // Registration reads are shared for a moment: let the new settings be seen.
    await wallWindowPassed(Date.now(), WEBHOOK_LOOKUP_SHARED_MS);
    const transfer = await api.call('POST', '/sandbox/pix/pay', { chave, valor: '4.00' });
    assert.equal(transfer.status, 201, transfer.text);
    const [callback] = await receiver.waitForCalls(1, '/settings/pix');
    assert.equal(callback.body.pix[0].endToEndId, transfer.body.endToEndId);
    assert.equal(callback.body.pix[0].txid, undefined);
    assert.equal(callback.body.pix[0].pagador, undefined, 'notificacao.pagador false');
  });

  it('retries a receiver that is down, in order per charge, and delivers each event once after acknowledgement', async () => {
    const api = await newApi();
    await api.registerPix(`${receiver.url}/down`);
    await receiver.down();
    try {
      const first = await api.payNewCharge('40.00');
      const second = await api.payNewCharge('41.00');
      const refund = await api.call('PUT', `/v2/pix/${first.endToEndId}/devolucao/r1`, { valor: '5.00' });
      assert.equal(refund.status, 201, refund.text);
      const failed = await waitFor(async () => {
        const d = await attemptsOf(api, second.endToEndId);
        // The attempt row is written first, then the job is rescheduled (ultimoErro set).
        return d?.tentativas.length === 1 && d.ultimoErro && d;
      }, 'first failed attempt');
      // Its refund event (same subject, newer) waits behind it: look at every delivery of the Pix.
      await waitFor(
        async () => (await api.deliveries()).some((d) => d.assunto === first.endToEndId && d.ultimoErro),
        'first charge rescheduled too',
      );
      assert.equal(failed.situacao, 'pendente');
      assert.match(failed.tentativas[0].erro, /^unreachable/);
      assert.equal(failed.tentativas[0].statusHttp, null);
      assert.ok(
        Date.parse(failed.proximaTentativa) - Date.parse(failed.tentativas[0].horario) >= 59_000,
        'next attempt a minute later',
      );
    } finally {
      await receiver.up();
    }
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/down/pix').length, 0, 'nothing before the retry is due');
    svc.advance(FIRST_RETRY_S);
    const calls = await receiver.waitForCalls(3, '/down/pix');
    await outboxIdle(svc);
    svc.advance(FIRST_RETRY_S);
    await outboxIdle(svc);
    const all = receiver.callsTo('/down/pix');
    assert.equal(all.length, 3, 'each event once: nothing is sent again after a 2xx');
    const ofFirst = all.filter(
      (c) => c.body.pix[0].endToEndId === calls.find((x) => x.body.pix[0].devolucoes.length)!.body.pix[0].endToEndId,
    );
    assert.equal(ofFirst.length, 2);
    assert.deepEqual(ofFirst[0].body.pix[0].devolucoes, [], 'the payment event first');
    assert.equal(
      ofFirst[1].body.pix[0].devolucoes[0].status,
      'DEVOLVIDO',
      'then the settled refund, with the whole refunds array',
    );
  });

  it('retries after a timeout', async () => {
    const api = await newApi();
    await api.registerPix(`${receiver.url}/slow`);
    receiver.behaviour = 'hang';
    hangTimesOut(true);
    let pix: { endToEndId: string };
    try {
      pix = await api.payNewCharge();
      const timedOut = await waitFor(async () => {
        const d = await attemptsOf(api, pix.endToEndId);
        return d?.tentativas.length === 1 && d.ultimoErro && d;
      }, 'timed-out attempt');
      assert.match(timedOut.tentativas[0].erro, /^timeout/);
      assert.ok(timedOut.tentativas[0].latenciaMs >= HANG_TIMEOUT_MS);
    } finally {
      receiver.behaviour = { status: 200 };
      hangTimesOut(false);
    }
    svc.advance(FIRST_RETRY_S);
    const delivered = await waitFor(async () => {
      const d = await attemptsOf(api, pix.endToEndId);
      return d?.situacao === 'entregue' && d;
    }, 'delivered on retry');
    assert.equal(delivered.tentativas.length, 2);
    assert.equal(receiver.callsTo('/slow/pix').length, 2, 'the timed-out call reached the receiver too: at least once');
  });

  it('delivers real recurrence and recurring-charge events to /rec and /cobr, and replays the last one', async () => {
    const party = await svc.newParty();
    const api = webhookApi(party);
    assert.equal((await api.call('PUT', '/v2/webhookrec', { webhookUrl: `${receiver.url}/auto` })).status, 200);
    assert.equal(
      (await api.call('PUT', '/v2/webhookcobr', { webhookUrl: `${receiver.url}/auto?ignorar=` })).status,
      201,
    );
    const today = brasiliaDate(new Date((await api.call('GET', '/sandbox/clock')).body.agora));
    const rec = await api.call(
      'POST',
      '/v2/rec',
      recBody({
        calendario: { dataInicial: today, periodicidade: 'SEMANAL' },
        valor: { valorMinimoRecebedor: '1.00' },
      }),
    );
    assert.equal(rec.status, 201, rec.text);
    const idRec = rec.body.idRec;
    assert.equal((await api.call('POST', `/sandbox/rec/${idRec}/aprovar`)).status, 200);
    let due = toEpochDay(today) + 3;
    while (!isBusinessDay(due)) due++;
    const { rows } = await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [
      party.accountId,
    ]);
    const cobr = await api.call('POST', '/v2/cobr', {
      idRec,
      calendario: { dataDeVencimento: fromEpochDay(due) },
      valor: { original: '20.00' },
      recebedor: { conta: rows[0].conta, tipoConta: 'PAGAMENTO' },
    });
    assert.equal(cobr.status, 201, cobr.text);
    const recStatuses = await waitFor(async () => {
      const statuses = receiver
        .callsTo('/auto/rec')
        .filter((c) => c.body.recs[0].idRec === idRec)
        .map((c) => c.body.recs[0].status);
      return statuses.length >= 2 && statuses;
    }, 'recurrence callbacks');
    assert.deepEqual(recStatuses, ['CRIADA', 'APROVADA']);
    const cobrCall = await waitFor(
      async () => receiver.callsTo('/auto?ignorar=').find((c) => c.body.cobsr),
      'recurring-charge callback',
    );
    assert.equal(cobrCall.path, '/auto?ignorar=', 'no suffix after ignorar=');
    assert.equal(cobrCall.body.cobsr[0].txid, cobr.body.txid);
    assert.equal(cobrCall.body.cobsr[0].idRec, idRec);

    const replay = await api.call('POST', '/sandbox/webhooks/rec', {});
    assert.equal(replay.status, 202, replay.text);
    assert.deepEqual(
      [replay.body.corpo.recs[0].idRec, replay.body.corpo.recs[0].status],
      [idRec, 'APROVADA'],
      'the current state of the latest recurrence, nothing invented',
    );
    await waitFor(
      async () => receiver.callsTo('/auto/rec').filter((c) => c.body.recs[0].idRec === idRec).length === 3,
      'the replayed callback',
    );
    const unknown = await api.call('POST', '/sandbox/webhooks/cobr', { txid: 'NaoExiste000000000000000000001' });
    assert.equal(unknown.status, 404, unknown.text);
  });

  it('loses nothing when the service stops between commit and delivery, or while a delivery is in flight', async () => {
    const api = await newApi();
    await api.registerPix(`${receiver.url}/restart`);
    receiver.behaviour = 'hang';
    hangTimesOut(true);
    const inFlight = await api.payNewCharge();
    await receiver.waitForCalls(1, '/restart/pix');
    await receiver.down();
    const queued = await api.payNewCharge('42.00');
    const data = svc.data;
    await svc.close({ keepData: true });
    hangTimesOut(false);
    receiver.behaviour = { status: 200 };
    await receiver.up();
    svc = await startTestService({}, { reuse: data });
    svc.advance(FIRST_RETRY_S);
    await waitFor(async () => {
      const got = receiver
        .callsTo('/restart/pix')
        .filter((c) => c.body.pix)
        .map((c) => c.body.pix[0].endToEndId);
      return got.includes(inFlight.endToEndId) && got.includes(queued.endToEndId);
    }, 'both delivered after the restart');
  });
});
