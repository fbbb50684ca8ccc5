/** Registration of Pix-key, recurrence and automatic-charge webhooks: the handshake against real receivers. */
// suite: serial (a 1.5 s registration timeout): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver } from '../helpers/receiver.ts';
import { setWebhookSettings } from '../../src/platform/webhooks/settings.ts';

describe('webhook registration and handshake', () => {
  let svc: TestService;
  let party: Party;
  let token: string;
  let mutual: Receiver;
  let plain: Receiver;
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    party.http.request(method, path, { token, body, headers });
  const put = (chave: string, webhookUrl: string, skip?: boolean) =>
    call(
      'PUT',
      `/v2/webhook/${encodeURIComponent(chave)}`,
      { webhookUrl },
      skip === undefined ? undefined : { 'x-skip-mtls-checking': String(skip) },
    );

  before(async () => {
    setWebhookSettings({ registrationTimeoutMs: 1500 });
    svc = await startTestService();
    party = await svc.newParty();
    token = await party.token();
    mutual = await Receiver.start({ clientCaPem: svc.caPem });
    plain = await Receiver.start();
  });
  after(async () => {
    await mutual.close();
    await plain.close();
    await svc.close();
  });

  it('saves the webhook after a refused anonymous call and an accepted call with the service certificate', async () => {
    const chave = party.chaves[0];
    const res = await put(chave, `${mutual.url}/hook`);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.webhookUrl, `${mutual.url}/hook`);
    assert.equal(res.body.chave, chave);
    const handshake = mutual.callsTo('/hook');
    assert.equal(handshake.length, 1, 'only the call with the certificate reaches the application');
    assert.equal(handshake[0].clientCertificate, true);
    assert.deepEqual(handshake[0].body, { evento: 'teste_webhook' });

    const read = await call('GET', `/v2/webhook/${chave}`);
    assert.equal(read.status, 200);
    assert.deepEqual(Object.keys(read.body).sort(), ['chave', 'criacao', 'webhookUrl']);
    const list = await call('GET', '/v2/webhook?inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z');
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.webhooks.length, 1);
    assert.equal(list.body.parametros.paginacao.quantidadeTotalDeItens, 1);
    const bad = await call('GET', '/v2/webhook?inicio=2030-01-01T00:00:00Z&fim=2020-01-01T00:00:00Z');
    assert.equal(bad.status, 400);
    assert.match(bad.body.type, /WebhookConsultaInvalida$/);

    assert.equal((await call('DELETE', `/v2/webhook/${chave}`)).status, 204);
    const gone = await call('GET', `/v2/webhook/${chave}`);
    assert.equal(gone.status, 404);
    assert.match(gone.body.type, /WebhookNaoEncontrado$/);
    assert.equal((await call('DELETE', `/v2/webhook/${chave}`)).status, 404);
  });

  it('refuses a receiver that does not require the client certificate, unless x-skip-mtls-checking is true', async () => {
    const chave = party.chaves[0];
    const refused = await put(chave, `${plain.url}/open`);
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.type, /WebhookOperacaoInvalida$/);
    assert.match(refused.body.detail, /mTLS não configurado/);
    assert.match(refused.body.detail, /x-skip-mtls-checking: true/, 'the way out this registration offers');
    assert.equal(refused.body.violacoes[0].propriedade, 'webhookUrl');
    assert.equal((await call('GET', `/v2/webhook/${chave}`)).status, 404, 'nothing saved');

    const before = plain.calls.length;
    const skipped = await put(chave, `${plain.url}/open?hmac=s3cr3t&ignorar=`, true);
    assert.equal(skipped.status, 201, skipped.text);
    assert.equal(plain.calls.length, before + 1, 'the anonymous call is skipped');
    assert.equal(plain.calls.at(-1)!.path, '/open?hmac=s3cr3t&ignorar=', 'the query is kept verbatim');
    assert.equal((await call('GET', `/v2/webhook/${chave}`)).body.webhookUrl, `${plain.url}/open?hmac=s3cr3t&ignorar=`);
  });

  it('names each handshake failure', async () => {
    const chave = party.chaves[0];
    const expectCause = async (url: string, pattern: RegExp, skip = false) => {
      const res = await put(chave, url, skip);
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.body.detail, pattern, url);
    };
    await expectCause('http://127.0.0.1:1/hook', /HTTPS/);
    await expectCause('not a url', /URL do webhook inválida/);
    const closedPort = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as net.AddressInfo;
        s.close(() => resolve(port));
      });
    });
    await expectCause(`https://127.0.0.1:${closedPort}/hook`, /inacessível/);
    mutual.behaviour = { status: 500 };
    await expectCause(`${mutual.url}/hook`, /código de erro HTTP.*HTTP 500/);
    mutual.behaviour = 'hang';
    await expectCause(`${mutual.url}/hook`, /limite de tempo/i);
    mutual.behaviour = { status: 200 };
    // pixd's own address: its CA is trusted (pixd listen registers such an address), and it answers 404 there.
    await expectCause(`https://localhost:${svc.service.ctx.config.port}/hook`, /código de erro/, true);
  });

  it("refuses keys that are not the caller's", async () => {
    const other = await svc.newParty();
    const res = await put(other.chaves[0], `${mutual.url}/hook`);
    assert.equal(res.status, 400);
    assert.equal(res.body.violacoes[0].propriedade, 'chave');
    assert.equal((await put('nao-existe@example.com', `${mutual.url}/hook`)).status, 400);
  });

  it('registers recurrence (200) and automatic-charge (201) webhooks with the same handshake', async () => {
    const rec = await call('PUT', '/v2/webhookrec', { webhookUrl: `${mutual.url}/r` });
    assert.equal(rec.status, 200, rec.text);
    const cobr = await call('PUT', '/v2/webhookcobr', { webhookUrl: `${mutual.url}/c` });
    assert.equal(cobr.status, 201, cobr.text);
    assert.equal((await call('GET', '/v2/webhookrec')).body.webhookUrl, `${mutual.url}/r`);
    assert.equal((await call('GET', '/v2/webhookcobr')).body.webhookUrl, `${mutual.url}/c`);
    const plainRec = await call('PUT', '/v2/webhookrec', { webhookUrl: `${plain.url}/r` });
    assert.equal(plainRec.status, 400);
    assert.match(plainRec.body.type, /WebhookRecOperacaoInvalida$/);
    assert.equal((await call('DELETE', '/v2/webhookrec')).status, 204);
    assert.equal((await call('GET', '/v2/webhookrec')).status, 404);
    assert.equal((await call('DELETE', '/v2/webhookcobr')).status, 204);
  });

  it('requires a token and the webhook scopes (403 on the Pix family)', async () => {
    assert.equal((await svc.anonymous.request('GET', `/v2/webhook/${party.chaves[0]}`)).status, 401);
    const reader = await svc.newParty({ scopes: ['webhook.read'] });
    const readerToken = await reader.token();
    const res = await reader.http.request('PUT', `/v2/webhook/${reader.chaves[0]}`, {
      token: readerToken,
      body: { webhookUrl: `${mutual.url}/hook` },
    });
    assert.equal(res.status, 403);
    assert.match(res.body.type, /AcessoNegado$/);
  });
});
