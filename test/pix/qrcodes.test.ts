import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDynamicPix, createStaticPix, hasError, parsePix, type StaticPixEmvElements } from 'pix-utils';
import { parseBrCode } from '../../src/platform/brcode.ts';
import { cobBody, startTestService, type TestService } from '../helpers/service.ts';
import { cobvBody, txidFor } from './payload-fixtures.ts';

describe('static BR codes and BR code decoding (/v2/gn/qrcodes)', () => {
  let svc: TestService;
  let token: string;
  let chave: string;
  const call = (method: string, path: string, body?: unknown) => svc.demo.http.request(method, path, { token, body });
  const createStatic = (body: unknown) => call('POST', '/v2/gn/qrcodes/estatico', body);
  const detail = (pixCopiaECola: string) => call('POST', '/v2/gn/qrcodes/detalhar', { pixCopiaECola });
  const parseStatic = (code: string) => {
    const parsed = parsePix(code);
    assert.ok(!hasError(parsed), `pix-utils accepts ${code}`);
    assert.equal((parsed as { type: string }).type, 'STATIC');
    return parsed as StaticPixEmvElements;
  };

  before(async () => {
    svc = await startTestService();
    token = await svc.demo.token();
    chave = svc.demo.chaves[0];
  });
  after(() => svc.close());

  it('creates a static code with amount, txid and infoAdicional that pix-utils reads back', async () => {
    const res = await createStatic({ chave, valor: '12.34', txid: 'Pedido42abc', infoAdicional: 'Pedido 42' });
    assert.equal(res.status, 201, res.text);
    const parsed = parseStatic(res.body.qrcode);
    assert.equal(parsed.pixKey, chave);
    assert.equal(parsed.transactionAmount, 12.34);
    assert.equal(parsed.txid, 'Pedido42abc');
    assert.equal(parsed.infoAdicional, 'Pedido 42');
    assert.equal(parsed.merchantName, 'Pixd Demo Ltda');
    assert.match(res.body.imagemQrcode, /^data:image\/png;base64,iVBORw0KGgo/);

    const decoded = await detail(res.body.qrcode);
    assert.equal(decoded.status, 200, decoded.text);
    assert.deepEqual(decoded.body, {
      tipo: 'estatico',
      chave,
      valor: '12.34',
      txid: 'Pedido42abc',
      infoAdicional: 'Pedido 42',
      recebedor: { nome: 'Pixd Demo Ltda', cidade: parsed.merchantCity },
    });
  });

  it('creates an open static code: no amount, txid ***', async () => {
    const res = await createStatic({ chave });
    assert.equal(res.status, 201);
    const parsed = parseStatic(res.body.qrcode);
    assert.ok(!parsed.transactionAmount, 'pix-utils reads an absent amount as 0');
    assert.equal(parseBrCode(res.body.qrcode).fields.has('54'), false, 'no amount field (ID 54)');
    assert.equal(parsed.txid, '***');
    const decoded = (await detail(res.body.qrcode)).body;
    assert.equal(decoded.valor, undefined);
    assert.equal(decoded.txid, undefined);
  });

  it("refuses keys that are not the caller's active keys", async () => {
    const other = await svc.newParty();
    const foreign = await createStatic({ chave: other.chaves[0] });
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.nome, 'chave_invalida');
    assert.equal(typeof foreign.body.mensagem, 'string');
    assert.equal(foreign.body.violacoes[0].propriedade, 'chave');
    const own = await other.http.request('POST', '/v2/gn/qrcodes/estatico', {
      token: await other.token(),
      body: { chave: other.chaves[0] },
    });
    assert.equal(own.status, 201);
    await svc.service.ctx.db.query('update pix_keys set removed_at = $2 where chave = $1', [
      other.chaves[0],
      svc.clock.now(),
    ]);
    const removed = await other.http.request('POST', '/v2/gn/qrcodes/estatico', {
      token: await other.token(),
      body: { chave: other.chaves[0] },
    });
    assert.equal(removed.status, 400);
    assert.equal(removed.body.nome, 'chave_invalida');
  });

  it('refuses malformed amounts, txids and an infoAdicional that does not fit', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ chave, valor: '12.3' }, 'valor'],
      [{ chave, valor: '0.00' }, 'valor'],
      [{ chave, txid: 'com espaco' }, 'txid'],
      [{ chave, txid: 'A'.repeat(26) }, 'txid'],
      [{ chave, infoAdicional: 'x'.repeat(60) }, 'infoAdicional'],
      [{ chave, outro: 1 }, 'outro'],
    ];
    for (const [body, property] of cases) {
      const res = await createStatic(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(
        res.body.violacoes.some((v: { propriedade: string }) => v.propriedade.endsWith(property)),
        `${JSON.stringify(res.body)} names ${property}`,
      );
    }
  });

  it('decodes a dynamic code of an immediate charge into its payload', async () => {
    const res = await call('PUT', `/v2/cob/${txidFor('Detalhar')}`, cobBody(chave, '321.00'));
    const decoded = await detail(res.body.pixCopiaECola);
    assert.equal(decoded.status, 200, decoded.text);
    assert.equal(decoded.body.tipo, 'dinamico');
    assert.equal(decoded.body.tipoCob, 'cob');
    assert.equal(decoded.body.txid, res.body.txid);
    assert.equal(decoded.body.status, 'ATIVA');
    assert.deepEqual(decoded.body.valor, { original: '321.00' });
    assert.equal(decoded.body.calendario.expiracao, 3600);
    assert.ok(decoded.body.calendario.apresentacao);
  });

  it('decodes a dynamic code of a due charge with the amount due today', async () => {
    const res = await call('PUT', `/v2/cobv/${txidFor('DetalharV')}`, cobvBody(svc, chave, '500.00', 10));
    assert.equal(res.status, 201, res.text);
    const decoded = (await detail(res.body.pixCopiaECola)).body;
    assert.equal(decoded.tipoCob, 'cobv');
    assert.equal(decoded.valor.final, '495.00');
    assert.ok(decoded.recebedor.nome);
  });

  it('tells why a dynamic code cannot be paid: removed charge, expired charge', async () => {
    const removed = await call('PUT', `/v2/cob/${txidFor('DetRemoved')}`, cobBody(chave, '99.00'));
    await call('PATCH', `/v2/cob/${removed.body.txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    assert.equal((await detail(removed.body.pixCopiaECola)).body.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
    const expired = await call(
      'PUT',
      `/v2/cob/${txidFor('DetExpired')}`,
      cobBody(chave, '99.00', { calendario: { expiracao: 60 } }),
    );
    svc.advance(61);
    try {
      const gone = await detail(expired.body.pixCopiaECola);
      assert.equal(gone.status, 410);
      assert.equal(gone.body.nome, 'CobPayloadNaoEncontrado');
    } finally {
      svc.clock.setOffsetMs(0);
    }
  });

  it("refuses a broken CRC, garbage and other institutions' dynamic codes, naming pixCopiaECola", async () => {
    const good = (await createStatic({ chave, valor: '1.00' })).body.qrcode as string;
    const flipped = good.slice(0, -4) + (good.endsWith('0000') ? '1111' : '0000');
    for (const code of [flipped, 'not a brcode', good.slice(0, 40)]) {
      const res = await detail(code);
      assert.equal(res.status, 400, code);
      assert.equal(res.body.nome, 'qrcode_invalido');
      assert.equal(res.body.violacoes[0].propriedade, 'pixCopiaECola');
    }
    const dynamic = createDynamicPix({
      merchantName: 'Outro Banco',
      merchantCity: 'Sao Paulo',
      url: 'qrcodespix.example.com/v2/0123456789abcdef0123456789abcdef',
    });
    assert.ok(!hasError(dynamic));
    const elsewhere = (dynamic as { toBRCode(): string }).toBRCode();
    const foreign = await detail(elsewhere);
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.nome, 'qrcode_nao_suportado');
    assert.equal(foreign.body.violacoes[0].propriedade, 'pixCopiaECola');
  });

  it('decodes static codes made by other encoders (amount normalised to two decimals)', async () => {
    const code = createStaticPix({
      merchantName: 'Loja Externa',
      merchantCity: 'Recife',
      pixKey: 'loja@example.com',
      transactionAmount: 10.5,
      txid: 'ABC123',
    });
    assert.ok(!hasError(code));
    const res = await detail((code as { toBRCode(): string }).toBRCode());
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      tipo: 'estatico',
      chave: 'loja@example.com',
      valor: '10.50',
      txid: 'ABC123',
      recebedor: { nome: 'LOJA EXTERNA', cidade: 'RECIFE' },
    });
  });

  it('requires cob.write to create and cob.read to decode', async () => {
    const reader = await svc.newParty({ scopes: ['cob.read'] });
    const t = await reader.token();
    assert.equal(
      (await reader.http.request('POST', '/v2/gn/qrcodes/estatico', { token: t, body: { chave: reader.chaves[0] } }))
        .status,
      403,
    );
    const code = (await createStatic({ chave })).body.qrcode;
    assert.equal(
      (await reader.http.request('POST', '/v2/gn/qrcodes/detalhar', { token: t, body: { pixCopiaECola: code } }))
        .status,
      200,
    );
    const writer = await svc.newParty({ scopes: ['cob.write'] });
    assert.equal(
      (
        await writer.http.request('POST', '/v2/gn/qrcodes/detalhar', {
          token: await writer.token(),
          body: { pixCopiaECola: code },
        })
      ).status,
      403,
    );
  });
});
