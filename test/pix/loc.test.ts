import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePix, hasError } from 'pix-utils';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { cobvBody, fetchLocation, txidFor } from './payload-fixtures.ts';

const RANGE = 'inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('payload locations (loc)', () => {
  let svc: TestService;
  let token: string;
  let chave: string;
  let host: string;
  const call = (method: string, path: string, body?: unknown) => svc.demo.http.request(method, path, { token, body });
  const newLoc = async (tipoCob: 'cob' | 'cobv') => {
    const res = await call('POST', '/v2/loc', { tipoCob });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: number; location: string; tipoCob: string; criacao: string };
  };

  before(async () => {
    svc = await startTestService();
    token = await svc.demo.token();
    chave = svc.demo.chaves[0];
    host = new URL(svc.config.publicUrl).host;
  });
  after(() => svc.close());

  it('creates locations of each type at their standard addresses', async () => {
    const cob = await newLoc('cob');
    assert.ok(Number.isInteger(cob.id));
    assert.equal(cob.tipoCob, 'cob');
    assert.match(cob.location, new RegExp(`^${host.replace(/\./g, '\\.')}/qr/v2/[0-9a-f]{32}$`));
    assert.ok(cob.location.length <= 77, 'Bacen: location is at most 77 characters');
    assert.ok(!Number.isNaN(Date.parse(cob.criacao)));
    const cobv = await newLoc('cobv');
    assert.match(cobv.location, /\/qr\/v2\/cobv\/[0-9a-f]{32}$/, 'due charges live under /cobv/ as in the standard');
    assert.equal((await call('GET', `/v2/loc/${cob.id}`)).body.txid, undefined, 'a new location serves no charge');
  });

  it('refuses an unknown tipoCob, naming the property', async () => {
    const res = await call('POST', '/v2/loc', { tipoCob: 'rec' });
    assert.equal(res.status, 400);
    assert.match(res.body.type, /PayloadLocationOperacaoInvalida$/);
    assert.equal(res.body.violacoes[0].propriedade, 'loc.tipoCob');
  });

  it('links a charge, shows its txid, unlinks it, and lets a new charge reuse the location', async () => {
    const loc = await newLoc('cob');
    const first = txidFor('LocFirst');
    const created = await call('PUT', `/v2/cob/${first}`, cobBody(chave, '50.00', { loc: { id: loc.id } }));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.loc.id, loc.id);
    assert.equal(created.body.location, loc.location);
    assert.deepEqual(await call('GET', `/v2/loc/${loc.id}`).then((r) => r.body), { ...loc, txid: first });

    const unlinked = await call('DELETE', `/v2/loc/${loc.id}/txid`);
    assert.equal(unlinked.status, 200);
    assert.deepEqual(unlinked.body, loc, 'the location without txid');
    const charge = (await call('GET', `/v2/cob/${first}`)).body;
    assert.equal(charge.status, 'ATIVA', 'unlinking does not change the status');
    assert.equal(charge.loc, undefined);
    assert.equal(charge.location, undefined);
    assert.equal(charge.pixCopiaECola, undefined);
    assert.equal((await fetchLocation(svc, loc.location)).status, 404, 'the location serves nothing now');
    assert.equal((await call('DELETE', `/v2/loc/${loc.id}/txid`)).status, 200, 'unlinking again is harmless');

    const second = txidFor('LocSecond');
    const reused = await call('PUT', `/v2/cob/${second}`, cobBody(chave, '60.00', { loc: { id: loc.id } }));
    assert.equal(reused.status, 201, reused.text);
    assert.equal(reused.body.location, loc.location);
    assert.equal((await call('GET', `/v2/loc/${loc.id}`)).body.txid, second);
  });

  it('serves one charge at a time and only of its own type', async () => {
    const loc = await newLoc('cob');
    assert.equal(
      (await call('PUT', `/v2/cob/${txidFor('LocOne')}`, cobBody(chave, '20.00', { loc: { id: loc.id } }))).status,
      201,
    );
    const taken = await call('PUT', `/v2/cob/${txidFor('LocTwo')}`, cobBody(chave, '20.00', { loc: { id: loc.id } }));
    assert.equal(taken.status, 400);
    assert.match(taken.body.type, /CobOperacaoInvalida$/);
    assert.equal(taken.body.violacoes[0].propriedade, 'cob.loc.id');

    const cobvLoc = await newLoc('cobv');
    const mismatch = await call(
      'PUT',
      `/v2/cob/${txidFor('LocMismatch')}`,
      cobBody(chave, '20.00', { loc: { id: cobvLoc.id } }),
    );
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.body.detail, /cobv/);
    const due = await call(
      'PUT',
      `/v2/cobv/${txidFor('LocDue')}`,
      cobvBody(svc, chave, '300.00', 5, { loc: { id: cobvLoc.id } }),
    );
    assert.equal(due.status, 201, due.text);
    assert.equal(due.body.loc.tipoCob, 'cobv');
    assert.equal(due.body.location, cobvLoc.location);
  });

  it('hides locations from other accounts (404) and treats malformed ids as absent', async () => {
    const loc = await newLoc('cob');
    const other = await svc.newParty({ nome: 'Outra Loja Ltda' });
    const t = await other.token();
    for (const [method, path] of [
      ['GET', `/v2/loc/${loc.id}`],
      ['DELETE', `/v2/loc/${loc.id}/txid`],
      ['GET', `/v2/loc/${loc.id}/qrcode`],
    ] as const) {
      const res = await other.http.request(method, path, { token: t });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.match(res.body.type, /PayloadLocationNaoEncontrado$/);
    }
    const claim = await other.http.request('PUT', `/v2/cob/${txidFor('LocForeign')}`, {
      token: t,
      body: cobBody(other.chaves[0], '20.00', { loc: { id: loc.id } }),
    });
    assert.equal(claim.status, 400, "another account's location cannot be claimed");
    for (const id of ['abc', '0', '99999999999999999999'])
      assert.equal((await call('GET', `/v2/loc/${id}`)).status, 404, id);
  });

  it('lists with date range, txIdPresente, tipoCob and pagination', async () => {
    const fresh: Party = await svc.newParty();
    const t = await fresh.token();
    const post = (body: unknown, path = '/v2/loc', method = 'POST') =>
      fresh.http.request(method, path, { token: t, body });
    const ids: number[] = [];
    for (const tipoCob of ['cob', 'cob', 'cobv', 'cob']) ids.push((await post({ tipoCob })).body.id);
    await post(cobBody(fresh.chaves[0], '30.00', { loc: { id: ids[1] } }), `/v2/cob/${txidFor('LocList')}`, 'PUT');
    const list = (query: string) => fresh.http.request('GET', `/v2/loc?${RANGE}${query}`, { token: t });

    const all = await list('');
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.loc.map((l: { id: number }) => l.id),
      ids,
    );
    assert.deepEqual(all.body.parametros, {
      inicio: '2020-01-01T00:00:00Z',
      fim: '2099-01-01T00:00:00Z',
      paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 4 },
    });
    const linked = await list('&txIdPresente=true');
    assert.deepEqual(
      linked.body.loc.map((l: { id: number }) => l.id),
      [ids[1]],
    );
    assert.equal(linked.body.loc[0].txid.length, 32);
    assert.equal(linked.body.parametros.txIdPresente, true);
    assert.deepEqual(
      (await list('&txIdPresente=false')).body.loc.map((l: { id: number }) => l.id),
      [ids[0], ids[2], ids[3]],
    );
    assert.deepEqual(
      (await list('&tipoCob=cobv')).body.loc.map((l: { id: number }) => l.id),
      [ids[2]],
    );
    const page1 = await list('&paginacao.itensPorPagina=3&paginacao.paginaAtual=1');
    assert.deepEqual(
      page1.body.loc.map((l: { id: number }) => l.id),
      [ids[3]],
    );
    assert.deepEqual(page1.body.parametros.paginacao, {
      paginaAtual: 1,
      itensPorPagina: 3,
      quantidadeDePaginas: 2,
      quantidadeTotalDeItens: 4,
    });
    const none = await fresh.http.request('GET', '/v2/loc?inicio=2020-01-01T00:00:00Z&fim=2020-02-01T00:00:00Z', {
      token: t,
    });
    assert.deepEqual(none.body.loc, []);
  });

  it('refuses list queries without inicio/fim, with fim before inicio or unknown parameters', async () => {
    for (const query of [
      '',
      'inicio=2020-01-01T00:00:00Z',
      'inicio=2021-01-01T00:00:00Z&fim=2020-01-01T00:00:00Z',
      `${RANGE}&tipoCob=rec`,
      `${RANGE}&outro=1`,
    ]) {
      const res = await call('GET', `/v2/loc?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(res.body.type, /PayloadLocationConsultaInvalida$/);
    }
  });

  it('hands out the QR code: dynamic BR code, PNG data URL and a public page', async () => {
    const loc = await newLoc('cob');
    await call('PUT', `/v2/cob/${txidFor('LocQr')}`, cobBody(chave, '70.00', { loc: { id: loc.id } }));
    const res = await call('GET', `/v2/loc/${loc.id}/qrcode`);
    assert.equal(res.status, 200);
    const parsed = parsePix(res.body.qrcode);
    assert.ok(!hasError(parsed), 'pix-utils accepts the code');
    assert.equal((parsed as { type: string }).type, 'DYNAMIC');
    assert.equal((parsed as { url: string }).url, loc.location);
    assert.equal(
      (await call('GET', `/v2/cob/${(await call('GET', `/v2/loc/${loc.id}`)).body.txid}`)).body.pixCopiaECola,
      res.body.qrcode,
      'same code as the charge',
    );

    const [prefix, base64] = res.body.imagemQrcode.split(',');
    assert.equal(prefix, 'data:image/png;base64');
    const png = Buffer.from(base64, 'base64');
    assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE);
    assert.equal(png.subarray(12, 16).toString('ascii'), 'IHDR');
    assert.ok(
      png.readUInt32BE(16) >= 200 && png.readUInt32BE(16) === png.readUInt32BE(20),
      'a square image of a usable size',
    );

    // A page a person opens: on the pages listener, which asks the browser for no certificate.
    assert.ok(res.body.linkVisualizacao.startsWith(svc.service.ctx.pages.url));
    const page = await svc.anonymous.request('GET', res.body.linkVisualizacao);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.ok(page.text.includes(res.body.qrcode), 'the copy-and-paste text');
    assert.ok(page.text.includes(res.body.imagemQrcode), 'the QR image');
    assert.equal((await svc.anonymous.request('GET', `${svc.config.publicUrl}/qr/visualizar/unknown`)).status, 404);
  });

  it('requires the client certificate, a token and the payloadlocation scopes', async () => {
    assert.equal((await svc.anonymous.request('POST', '/v2/loc', { token, body: { tipoCob: 'cob' } })).status, 401);
    const reader = await svc.newParty({ scopes: ['payloadlocation.read'] });
    const t = await reader.token();
    const denied = await reader.http.request('POST', '/v2/loc', { token: t, body: { tipoCob: 'cob' } });
    assert.equal(denied.status, 403);
    assert.match(denied.body.type, /AcessoNegado$/);
    assert.equal((await reader.http.request('GET', `/v2/loc?${RANGE}`, { token: t })).status, 200);
    const writer = await svc.newParty({ scopes: ['payloadlocation.write'] });
    assert.equal((await writer.http.request('GET', `/v2/loc?${RANGE}`, { token: await writer.token() })).status, 403);
  });
});
