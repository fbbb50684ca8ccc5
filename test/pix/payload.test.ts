import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { exportJWK } from 'jose';
import { dueAmountOn } from '../../src/pix/cobv/amount.ts';
import type { CobVBody } from '../../src/pix/cobv/schemas.ts';
import { formatAmount } from '../../src/platform/money.ts';
import { cobBody, startTestService, type TestService } from '../helpers/service.ts';
import { brasiliaDay, cobvBody, fetchLocation, payloadAt, txidFor } from './payload-fixtures.ts';
import { DEFAULT_ADDRESS } from '../../src/accounts/service.ts';

describe('payloads served at locations (JWS)', () => {
  let svc: TestService;
  let token: string;
  let chave: string;
  const call = (method: string, path: string, body?: unknown) => svc.demo.http.request(method, path, { token, body });
  const createCob = async (original: string, extra: Record<string, unknown> = {}) => {
    const res = await call(
      'PUT',
      `/v2/cob/${txidFor('Payload')}`,
      cobBody(chave, original, { infoAdicionais: [{ nome: 'Pedido', valor: '42' }], ...extra }),
    );
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const createCobV = async (original = '500.00', dueInDays = 10) => {
    const res = await call('PUT', `/v2/cobv/${txidFor('PayloadV')}`, cobvBody(svc, chave, original, dueInDays));
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const problemAt = async (location: string, status: number, name: string, query = '') => {
    const res = await fetchLocation(svc, location, query);
    assert.equal(res.status, status, res.text);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.match(res.body.type, new RegExp(`/${name}$`));
    return res.body;
  };

  before(async () => {
    svc = await startTestService();
    token = await svc.demo.token();
    chave = svc.demo.chaves[0];
  });
  afterEach(() => svc.clock.setOffsetMs(0));
  after(() => svc.close());

  it('publishes the signing key with its certificate chain, without credentials', async () => {
    const res = await svc.anonymous.request('GET', '/.well-known/jwks.json');
    assert.equal(res.status, 200);
    const [jwk, ...others] = res.body.keys;
    assert.equal(others.length, 0);
    assert.equal(jwk.kty, 'RSA');
    assert.equal(jwk.use, 'sig');
    assert.equal(jwk.alg, 'RS256');
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi'])
      assert.equal(jwk[secret], undefined, `no private ${secret}`);
    const [leaf, ca] = jwk.x5c.map((der: string) => new X509Certificate(Buffer.from(der, 'base64')));
    assert.equal(ca.toString(), new X509Certificate(svc.caPem).toString(), 'the chain ends at our CA');
    assert.ok(leaf.verify(ca.publicKey), 'the signing certificate is issued by our CA');
    assert.deepEqual(
      { ...(await exportJWK(leaf.publicKey)) },
      { kty: jwk.kty, n: jwk.n, e: jwk.e },
      'the key is the certificate key',
    );
    assert.equal(jwk.x5t, createHash('sha1').update(leaf.raw).digest('base64url'));
  });

  it('serves an immediate charge as a JWS that verifies, with the Bacen CobPayload fields', async () => {
    const cob = await createCob('123.45');
    const { header, payload } = await payloadAt(svc, cob.location);
    const jwks = (await svc.anonymous.request('GET', '/.well-known/jwks.json')).body;
    assert.equal(header.alg, 'RS256');
    assert.equal(header.kid, jwks.keys[0].kid);
    assert.equal(header.jku, `${svc.config.publicUrl}/.well-known/jwks.json`);
    assert.equal(header.x5t, jwks.keys[0].x5t);
    const apresentacao = Date.parse(payload.calendario.apresentacao);
    assert.ok(Math.abs(apresentacao - svc.clock.nowMs()) < 5_000, 'apresentacao is now');
    assert.deepEqual(
      payload,
      {
        calendario: { criacao: cob.calendario.criacao, apresentacao: payload.calendario.apresentacao, expiracao: 3600 },
        txid: cob.txid,
        revisao: 0,
        status: 'ATIVA',
        devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
        valor: { original: '123.45' },
        chave,
        solicitacaoPagador: 'Serviço realizado.',
        infoAdicionais: [{ nome: 'Pedido', valor: '42' }],
      },
      'exactly these fields: nothing API-only (loc, location, pixCopiaECola)',
    );
  });

  it('follows revisions, ignores DPP for immediate charges and checks the query formats', async () => {
    const cob = await createCob('80.00');
    await call('PATCH', `/v2/cob/${cob.txid}`, { valor: { original: '90.00' } });
    const { payload } = await payloadAt(svc, cob.location, `?DPP=${brasiliaDay(svc, 3)}&codMun=2611606`);
    assert.equal(payload.revisao, 1);
    assert.equal(payload.valor.original, '90.00');
    const bad = await problemAt(cob.location, 400, 'CobPayloadOperacaoInvalida', '?DPP=2024-02-30');
    assert.match(bad.violacoes[0].propriedade, /DPP/);
    await problemAt(cob.location, 400, 'CobPayloadOperacaoInvalida', '?codMun=26116');
  });

  it('answers 404 CobPayloadNaoEncontrado for an unknown token or a location serving nothing', async () => {
    const cob = await createCob('40.00');
    const unknown = cob.location.replace(/[0-9a-f]{32}$/, '0'.repeat(32));
    await problemAt(unknown, 404, 'CobPayloadNaoEncontrado');
    const loc = (await call('POST', '/v2/loc', { tipoCob: 'cob' })).body;
    await problemAt(loc.location, 404, 'CobPayloadNaoEncontrado');
  });

  it('shows a paid charge as CONCLUIDA and a removed one as REMOVIDA_PELO_USUARIO_RECEBEDOR', async () => {
    const paid = await createCob('150.00');
    const pay = await call('POST', '/sandbox/pix/pay', { pixCopiaECola: paid.pixCopiaECola });
    assert.equal(pay.status, 201, pay.text);
    assert.equal((await payloadAt(svc, paid.location)).payload.status, 'CONCLUIDA');

    const removed = await createCob('150.00');
    await call('PATCH', `/v2/cob/${removed.txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    const { payload } = await payloadAt(svc, removed.location);
    assert.equal(payload.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
    assert.equal(payload.revisao, 1);
  });

  it('shows a charge whose key was removed as REMOVIDA_PELO_PSP', async () => {
    const party = await svc.newParty();
    const res = await party.http.request('PUT', `/v2/cob/${txidFor('KeyGone')}`, {
      token: await party.token(),
      body: cobBody(party.chaves[0], '75.00'),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal((await payloadAt(svc, res.body.location)).payload.status, 'ATIVA');
    await svc.service.ctx.db.query('update pix_keys set removed_at = $2 where chave = $1', [
      party.chaves[0],
      svc.clock.now(),
    ]);
    assert.equal((await payloadAt(svc, res.body.location)).payload.status, 'REMOVIDA_PELO_PSP');
  });

  it('answers 410 once an immediate charge has expired', async () => {
    const cob = await createCob('60.00', { calendario: { expiracao: 120 } });
    assert.equal((await payloadAt(svc, cob.location)).payload.status, 'ATIVA');
    svc.advance(121);
    const gone = await problemAt(cob.location, 410, 'CobPayloadNaoEncontrado');
    assert.match(gone.detail, /expirou/);
  });

  it('prices a due charge on the intended payment date (DPP), with the receiver', async () => {
    const cobv = await createCobV('500.00', 10);
    const body = (await call('GET', `/v2/cobv/${cobv.txid}`)).body as CobVBody & { calendario: { criacao: string } };

    const today = await payloadAt(svc, cobv.location);
    const p = today.payload;
    assert.deepEqual(p.calendario, {
      criacao: cobv.calendario.criacao,
      apresentacao: p.calendario.apresentacao,
      dataDeVencimento: body.calendario.dataDeVencimento,
      validadeAposVencimento: 10,
    });
    assert.equal(p.txid, cobv.txid);
    assert.equal(p.revisao, 0);
    assert.equal(p.status, 'ATIVA');
    assert.equal(p.chave, chave);
    assert.deepEqual(p.devedor, body.devedor);
    assert.equal(p.recebedor.nome, 'Pixd Demo Ltda');
    assert.match(p.recebedor.cnpj ?? p.recebedor.cpf, /^\d{11}(\d{3})?$/);
    for (const part of ['logradouro', 'cidade', 'uf', 'cep'] as const)
      assert.equal(p.recebedor[part], DEFAULT_ADDRESS[part], `recebedor.${part} (Bacen CobVPayload requires it)`);
    assert.deepEqual(
      p.valor,
      { original: '500.00', desconto: '5.00', final: '495.00' },
      'before the due date: the discount',
    );

    const late = brasiliaDay(svc, 13);
    const after = (await payloadAt(svc, cobv.location, `?DPP=${late}&codMun=2611606`)).payload;
    const due = dueAmountOn(body, late);
    assert.equal(after.valor.multa, '10.00', '2% multa');
    assert.ok(due.jurosCents > 0);
    assert.equal(after.valor.juros, formatAmount(due.jurosCents));
    assert.equal(after.valor.desconto, undefined, 'no discount after the due date');
    assert.equal(after.valor.final, formatAmount(due.finalCents));
    assert.notEqual(after.valor.final, p.valor.final);
  });

  it('refuses a DPP before today or past the last payable day, and a bad codMun', async () => {
    const cobv = await createCobV('500.00', 3);
    for (const dpp of [brasiliaDay(svc, -1), brasiliaDay(svc, 30)]) {
      const problem = await problemAt(cobv.location, 400, 'CobPayloadOperacaoInvalida', `?DPP=${dpp}`);
      assert.equal(problem.violacoes[0].propriedade, 'DPP');
    }
    await problemAt(cobv.location, 400, 'CobPayloadOperacaoInvalida', '?codMun=abc');
  });

  it('answers 410 once a due charge is past its last payable day', async () => {
    const cobv = await createCobV('500.00', 1);
    svc.advance(20 * 86_400);
    const gone = await problemAt(cobv.location, 410, 'CobPayloadNaoEncontrado');
    assert.match(gone.detail, /só podia ser paga até/);
  });

  it("decodes through the official SDK's pixQrCodeDetail, trusting our CA through NODE_EXTRA_CA_CERTS", async () => {
    const cob = await createCob('210.00');
    const cobv = await createCobV('500.00', 10);
    const run = promisify(execFile);
    const child = fileURLToPath(new URL('./qrcode-detail.child.ts', import.meta.url));
    const detail = async (extra: Record<string, string>) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PIXD_CREDENTIALS_FILE: svc.service.credentialsPath,
        TZ: 'America/Sao_Paulo',
        ...extra,
      };
      if (!extra.NODE_EXTRA_CA_CERTS) delete env.NODE_EXTRA_CA_CERTS;
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', child, cob.pixCopiaECola, cobv.pixCopiaECola],
        { env, timeout: 60_000 },
      );
      return JSON.parse(stdout.trim().split('\n').pop()!) as {
        ok: boolean;
        detail?: Record<string, any>;
        error?: string;
      }[];
    };

    const [immediate, due] = await detail({ NODE_EXTRA_CA_CERTS: svc.service.credentials.caCertificate });
    assert.ok(immediate.ok, String(immediate.error));
    assert.equal(immediate.detail!.tipoCob, 'cob');
    assert.equal(immediate.detail!.txid, cob.txid);
    assert.equal(immediate.detail!.valor.original, '210.00');
    assert.equal(immediate.detail!.status, 'ATIVA');
    assert.ok(due.ok, String(due.error));
    assert.equal(due.detail!.tipoCob, 'cobv', 'the SDK tells the type from the /cobv/ segment');
    assert.equal(due.detail!.txid, cobv.txid);
    assert.equal(due.detail!.valor.final, '495.00');

    const untrusted = await detail({});
    assert.ok(
      untrusted.every((r) => !r.ok),
      'without our CA the payer side cannot fetch the location',
    );
  });
});
