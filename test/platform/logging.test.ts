import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loggerOptions } from '../../src/platform/logging.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

describe('request log', () => {
  const lines: Record<string, any>[] = [];
  let svc: TestService;
  let receiver: Receiver;
  before(async () => {
    const stream = { write: (line: string) => void lines.push(JSON.parse(line)) };
    svc = await startTestService({}, { logger: { ...loggerOptions('info'), stream } });
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
  });
  after(async () => {
    await receiver.close();
    await svc.close();
  });
  const logged = (msg: string, match: (line: Record<string, any>) => boolean) =>
    waitFor(async () => lines.find((line) => line.msg === msg && match(line)), `a "${msg}" line`);

  it('writes one line per request when it ends, without the query string or the token', async () => {
    const token = await svc.demo.token();
    const cpf = '52998224725';
    const res = await svc.demo.http.request(
      'GET',
      `/v2/cob?inicio=2020-01-01T00:00:00Z&fim=2030-01-01T00:00:00Z&cpf=${cpf}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    assert.equal(res.status, 200);
    const missing = await svc.demo.http.request('GET', '/v2/nada', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(missing.status, 404);

    const requests = lines.filter((line) => line.msg === 'request' || line.msg === 'request refused');
    const list = requests.filter((line) => line.path === '/v2/cob');
    assert.equal(list.length, 1);
    assert.deepEqual(
      { ...list[0], time: 0, pid: 0, hostname: '', reqId: '', responseTimeMs: 0 },
      {
        level: 30,
        time: 0,
        pid: 0,
        hostname: '',
        reqId: '',
        msg: 'request',
        method: 'GET',
        path: '/v2/cob',
        route: '/v2/cob',
        statusCode: 200,
        responseTimeMs: 0,
      },
    );
    assert.ok(typeof list[0].responseTimeMs === 'number' && list[0].responseTimeMs >= 0);
    assert.ok(
      requests.some((line) => line.path === '/v2/nada' && line.route === 'unmatched' && line.statusCode === 404),
    );
    // Fastify's own two lines per request are off; nothing logged carries the payer's document or the token.
    assert.ok(!lines.some((line) => line.msg === 'incoming request' || line.msg === 'request completed'));
    const text = lines.map((line) => JSON.stringify(line)).join('\n');
    assert.ok(!text.includes(cpf), 'a CPF from the query string was logged');
    assert.ok(!text.includes(token), 'the bearer token was logged');
  });

  it('logs a failed statement without the row it carried: no payer document or name', async () => {
    const token = await svc.demo.token();
    const db = svc.service.ctx.db;
    const cpf = '71428793860';
    const nome = 'Benedita Quaresma';
    // A realistic database refusal whose `detail` quotes the whole failing row ("Failing row contains …").
    await db.query(
      `alter table charges add constraint test_refuses_quaresma check (body->'devedor'->>'nome' <> '${nome}')`,
    );
    try {
      const body = {
        calendario: { expiracao: 3600 },
        devedor: { cpf, nome },
        valor: { original: '12.34' },
        chave: svc.demo.chaves[0],
      };
      const refused = await Promise.all([0, 1, 2].map(() => svc.demo.http.request('POST', '/v2/cob', { token, body })));
      for (const res of refused) assert.equal(res.status, 500, res.text);
    } finally {
      await db.query('alter table charges drop constraint test_refuses_quaresma');
    }
    const errors = lines.filter((line) => (line.level as number) >= 50);
    assert.ok(errors.length > 0, 'the failures were logged');
    assert.ok(
      errors.some((line) => JSON.stringify(line).includes('test_refuses_quaresma')),
      'the log still names the constraint',
    );
    const text = lines.map((line) => JSON.stringify(line)).join('\n');
    assert.ok(!text.includes(cpf), 'a payer CPF was logged');
    assert.ok(!text.includes('Quaresma'), 'a payer name was logged');
  });

  it('writes ISO timestamps', () => {
    assert.match(String(lines[0].time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('writes one line per money movement once committed, and one per webhook attempt with its outcome', async () => {
    const party = await svc.newParty();
    const api = webhookApi(party);
    await api.registerPix(`${receiver.url}/hook`);
    const pix = await api.payNewCharge('50.00');
    const received = await logged('money moved', (line) => line.reference === pix.endToEndId);
    assert.equal(received.kind, 'pix_recebido');
    assert.equal(received.amountCents, 5000);
    assert.equal(typeof received.accountId, 'number');
    const refund = await api.call('PUT', `/v2/pix/${pix.endToEndId}/devolucao/log1`, { valor: '12.34' });
    assert.equal(refund.status, 201, refund.text);
    const refunded = await logged('money moved', (line) => line.kind === 'pix_devolvido' && line.amountCents === 1234);
    assert.equal(refunded.accountId, received.accountId);
    // A send moves money twice: the hold at the request, the settlement by its job.
    const send = await api.call('PUT', '/v2/gn/pix/logEnvio1', {
      valor: '1.00',
      pagador: { chave: party.chaves[0] },
      favorecido: { chave: svc.demo.chaves[0] },
    });
    assert.equal(send.status, 201, send.text);
    const hold = await logged('money moved', (line) => line.reference === send.body.e2eId);
    assert.deepEqual([hold.kind, hold.amountCents], ['pix_enviado_chave', 100]);
    await logged('money moved', (line) => line.reference === send.body.e2eId && line.kind === 'pix_enviado_liquidado');
    const delivered = await logged('webhook delivered', (line) => line.accountId === received.accountId);
    assert.equal(delivered.statusCode, 200);
    assert.equal(delivered.url, `${receiver.url}/hook/pix`);
    assert.equal(typeof delivered.latencyMs, 'number');

    receiver.behaviour = { status: 500 };
    try {
      const second = await api.payNewCharge('51.00');
      await logged('money moved', (line) => line.reference === second.endToEndId);
      const failed = await logged('webhook attempt failed', (line) => line.accountId === received.accountId);
      assert.equal(failed.level, 40);
      assert.equal(failed.statusCode, 500);
      assert.ok(failed.error);
    } finally {
      receiver.behaviour = { status: 200 };
    }
  });

  it('names the reason of a refused request, without the personal data it quotes', async () => {
    const token = await svc.demo.token();
    const cpfKey = '52998224725';
    const res = await svc.demo.http.request('POST', '/sandbox/pix/pay', {
      token,
      body: { chave: cpfKey, valor: '1.00' },
    });
    assert.ok(res.status >= 400 && res.status < 500, res.text);
    const line = await logged('request refused', (l) => l.path === '/sandbox/pix/pay');
    assert.equal(line.statusCode, res.status);
    assert.equal(typeof line.error, 'string');
    assert.ok(String(line.reason).length > 0);
    assert.ok(!JSON.stringify(lines).includes(cpfKey), 'the key quoted by the refusal was logged');

    const invalid = await svc.demo.http.request('POST', '/v2/cob', { token, body: { valor: { original: 'x' } } });
    assert.equal(invalid.status, 400);
    const schema = await logged('request refused', (l) => l.path === '/v2/cob' && l.statusCode === 400);
    assert.equal(schema.error, 'CobOperacaoInvalida');
    assert.match(String(schema.reason), /valor\.original/);
  });
});
