/** Account-opening webhooks (/v1/webhook): every spec error name from its condition, callbacks and their retry schedule. */
// suite: serial (a 400 ms opening-webhook timeout): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import net from 'node:net';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { setWebhookSettings } from '../../src/platform/webhooks/settings.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { createCa, issueCertificate } from '../../src/platform/pki.ts';
import { recentDeliveries } from '../../src/platform/webhooks/inspection.ts';

/** A TCP server that accepts and closes at once: the URL "does not respond". */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An HTTPS server whose certificate comes from a CA nobody trusts: the handshake's TLS fails. */
async function untrustedServer(): Promise<{ port: number; close(): Promise<void> }> {
  const identity = issueCertificate(createCa('untrusted test CA'), {
    commonName: 'untrusted',
    usage: 'server',
    altNames: ['127.0.0.1'],
  });
  const server = https.createServer({ key: identity.keyPem, cert: identity.certPem }, (_q, r) => r.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function closedPort(): Promise<number> {
  const silent = await silentServer();
  await silent.close();
  return silent.port;
}

describe('account-opening webhooks', () => {
  let svc: TestService;
  let api: WebhookApi;
  let mutual: Receiver;
  let plain: Receiver;
  const register = (body: unknown) => api.call('POST', '/v1/webhook', body);

  before(async () => {
    setWebhookSettings({ registrationTimeoutMs: 1000, openingTimeoutMs: 400 });
    svc = await startTestService();
    api = webhookApi(await svc.newParty());
    mutual = await Receiver.start({ clientCaPem: svc.caPem });
    plain = await Receiver.start();
  });
  after(async () => {
    await mutual.close();
    await plain.close();
    await svc.close();
  });

  it('registers, reads, lists and removes', async () => {
    const created = await register({ webhookUrl: `${mutual.url}/opening` });
    assert.equal(created.status, 200, created.text);
    const id = created.body.identificadorWebhook;
    assert.equal(typeof id, 'string');
    const read = await api.call('GET', `/v1/webhook/${id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.webhookUrl, `${mutual.url}/opening`);
    assert.equal(read.body.identificadorWebhook, id);
    const second = await register({ url: `${mutual.url}/opening2` });
    assert.equal(second.status, 200, second.text);
    const list = await api.call('GET', '/v1/webhooks?inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z');
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.webhooks.length, 2);
    assert.equal(list.body.parametros.paginacao.quantidadeTotalDeItens, 2);
    assert.equal((await api.call('DELETE', `/v1/webhook/${second.body.identificadorWebhook}`)).status, 204);
    const unknown = await api.call('GET', `/v1/webhook/${second.body.identificadorWebhook}`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(Object.keys(unknown.body).sort(), ['mensagem', 'nome']);
    assert.equal(unknown.body.nome, 'identificador_webhook');
    assert.equal((await api.call('DELETE', '/v1/webhook/nao-existe')).body.nome, 'identificador_webhook');
    const badRange = await api.call('GET', '/v1/webhooks?inicio=2030-01-01T00:00:00Z&fim=2020-01-01T00:00:00Z');
    assert.equal(badRange.status, 400);
    assert.equal(badRange.body.nome, 'data_invalida');
  });

  it('names every registration failure as the spec does', async () => {
    const silent = await silentServer();
    const untrusted = await untrustedServer();
    const expectName = async (body: unknown, nome: string) => {
      const res = await register(body);
      assert.equal(res.body.nome, nome, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(res.status >= 400 && res.status < 500);
    };
    try {
      await expectName({ webhookUrl: 'nada disso' }, 'url_webhook');
      await expectName({}, 'url_webhook');
      await expectName({ webhookUrl: 'http://127.0.0.1:1/x' }, 'protocolo_da_url');
      await expectName({ webhookUrl: `${plain.url}/opening` }, 'mtls_nao_configurado');
      // mTLS is required here (spec: Authentication 6): the refusal gives no advice the next call would not honour.
      const refused = await register({ webhookUrl: `${plain.url}/opening` });
      assert.doesNotMatch(refused.body.mensagem, /x-skip-mtls-checking/);
      const skipped = await api.call(
        'POST',
        '/v1/webhook',
        { webhookUrl: `${plain.url}/opening` },
        { 'x-skip-mtls-checking': 'true' },
      );
      assert.equal(skipped.body.nome, 'mtls_nao_configurado', 'the header does not apply to this webhook');
      await expectName({ webhookUrl: `https://127.0.0.1:${await closedPort()}/x` }, 'url_inacessivel');
      await expectName({ webhookUrl: `https://127.0.0.1:${silent.port}/x` }, 'url_informada_nao_existe');
      await expectName({ webhookUrl: `https://127.0.0.1:${untrusted.port}/x` }, 'url_falhou_com_erro');
      mutual.behaviour = { status: 503 };
      await expectName({ webhookUrl: `${mutual.url}/err` }, 'erro_de_codigo');
      mutual.behaviour = 'hang';
      await expectName({ webhookUrl: `${mutual.url}/slow` }, 'limite_de_tempo_atingido_para_url');
      mutual.behaviour = { status: 200 };
      await expectName({ url: `${mutual.url}/k`, chave: 'chave-de-outra-conta' }, 'chave_invalida');
      await expectName({ webhookUrl: `${mutual.url}/opening` }, 'url_cadastrada');
    } finally {
      mutual.behaviour = { status: 200 };
      await silent.close();
      await untrusted.close();
    }
  });

  it('answers a missing scope with 401', async () => {
    const reader = webhookApi(await svc.newParty({ scopes: ['gn.registration.webhook.read'] }));
    const res = await reader.call('POST', '/v1/webhook', { webhookUrl: `${mutual.url}/x` });
    assert.equal(res.status, 401, res.text);
    assert.ok(res.body.nome);
    assert.equal((await reader.call('GET', '/v1/webhooks')).status, 200);
  });

  it('calls back with the event, and retries at 5, 10, 20 … 52560 minutes after each failure', async () => {
    const owner = await svc.newParty();
    const party = webhookApi(owner);
    const url = `${mutual.url}/retry?hmac=k&ignorar=`;
    assert.equal((await party.call('POST', '/v1/webhook', { webhookUrl: url })).status, 200);
    mutual.behaviour = { status: 500 };
    const calls = () => mutual.calls.filter((c) => c.path === '/retry?hmac=k&ignorar=' && c.body.contaSimplificada);
    try {
      const emitted = await party.call('POST', '/sandbox/webhooks/abertura-conta', { evento: 'conta_aberta' });
      assert.equal(emitted.status, 202, emitted.text);
      assert.equal(emitted.body.webhooks, 1);
      // Read from the store (the moved clock expires tokens): the attempt row is written first, then the
      // job is rescheduled; the clock may only move once the next attempt's time is set.
      const delivery = async () =>
        (await recentDeliveries(svc.service.ctx.db, owner.accountId, ['webhook.opening'], 1))[0];
      const rescheduledAfter = (attempts: number) =>
        waitFor(async () => {
          const d = await delivery();
          return (
            d?.tentativas.length === attempts &&
            d.proximaTentativa &&
            Date.parse(d.proximaTentativa) > Date.parse(d.tentativas[attempts - 1].horario) &&
            d
          );
        }, `attempt ${attempts} rescheduled`);
      await rescheduledAfter(1);
      assert.equal(calls().length, 1);
      assert.deepEqual(calls()[0].body, {
        contaSimplificada: { identificador: emitted.body.identificador },
        evento: 'conta_aberta',
      });
      for (const [index, minutes] of LIMITS.openingRetryScheduleMinutes.slice(0, -1).entries()) {
        // One minute short of the step: nothing yet.
        svc.advance((minutes - 1) * 60);
        await outboxIdle(svc);
        assert.equal(calls().length, index + 1, `no attempt ${index + 2} before ${minutes} minutes`);
        svc.advance(60);
        await rescheduledAfter(index + 2);
        assert.equal(calls().length, index + 2, `attempt ${index + 2} at ${minutes} minutes`);
      }
      // The last retry (52560 minutes): after it, no more.
      svc.advance((LIMITS.openingRetryScheduleMinutes.at(-1)! - 1) * 60);
      await outboxIdle(svc);
      assert.equal(calls().length, 10);
      svc.advance(60);
      await waitFor(async () => calls().length === 11, 'attempt 11 at 52560 minutes');
      const final = await waitFor(async () => {
        const d = await delivery();
        return d?.situacao === 'falhou' && d;
      }, 'given up after the last retry');
      svc.advance(LIMITS.openingRetryScheduleMinutes.at(-1)! * 60);
      await outboxIdle(svc);
      assert.equal(final.tentativas.length, LIMITS.openingRetryScheduleMinutes.length + 1);
      assert.equal(calls().length, 11, 'nothing after the tenth retry');
      for (const [i, attempt] of final.tentativas.slice(1).entries()) {
        const gapMinutes = (Date.parse(attempt.horario) - Date.parse(final.tentativas[i].horario)) / 60_000;
        assert.ok(gapMinutes >= LIMITS.openingRetryScheduleMinutes[i], `gap ${i + 1}: ${gapMinutes} min`);
        assert.equal(attempt.statusHttp, 500);
      }
    } finally {
      mutual.behaviour = { status: 200 };
      svc.clock.setOffsetMs(0);
    }
  });

  it('times a callback out (60 s in production; shortened here) and retries it', async () => {
    const party = webhookApi(await svc.newParty());
    assert.equal((await party.call('POST', '/v1/webhook', { webhookUrl: `${mutual.url}/to` })).status, 200);
    mutual.behaviour = 'hang';
    try {
      await party.call('POST', '/sandbox/webhooks/abertura-conta', { evento: 'conta_recusada_pelo_cliente_final' });
      const d = await waitFor(async () => {
        const found = (await party.deliveries('webhook.opening'))[0];
        // The attempt row is written first, then the job is rescheduled (ultimoErro set).
        return found?.tentativas.length === 1 && found.ultimoErro && found;
      }, 'timed-out attempt');
      assert.match(d.tentativas[0].erro, /^timeout/);
      assert.equal(d.situacao, 'pendente');
      assert.equal((Date.parse(d.proximaTentativa) - Date.parse(d.tentativas[0].horario)) / 60_000 >= 5, true);
    } finally {
      mutual.behaviour = { status: 200 };
    }
    svc.advance(5 * 60);
    await waitFor(
      async () => (await party.deliveries('webhook.opening'))[0]?.situacao === 'entregue',
      'delivered on retry',
    );
    svc.clock.setOffsetMs(0);
  });
});
