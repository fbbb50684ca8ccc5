import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { recBody } from './rec-fixtures.ts';

const RANGE = 'inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z';

describe('locations of recurrences (locrec)', () => {
  let svc: TestService;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => svc.demo.http.request(method, path, { token, body });
  const newLoc = async () => {
    const res = await call('POST', '/v2/locrec');
    assert.equal(res.status, 201, res.text);
    return res.body as { id: number; location: string; criacao: string; idRec?: string };
  };

  before(async () => {
    svc = await startTestService();
    token = await svc.demo.token();
  });
  after(() => svc.close());

  it('creates a location, links one recurrence to it, refuses a second, and unlinks', async () => {
    const loc = await newLoc();
    const host = new URL(svc.config.publicUrl).host;
    assert.ok(loc.location.startsWith(`${host}/qr/v2/rec/`), loc.location);
    assert.ok(loc.location.length <= 77);
    assert.equal(loc.idRec, undefined);
    const rec = await call('POST', '/v2/rec', recBody({ loc: loc.id }));
    assert.equal(rec.status, 201, rec.text);
    assert.deepEqual(rec.body.loc, { id: loc.id, location: loc.location, criacao: loc.criacao });
    assert.deepEqual((await call('GET', `/v2/locrec/${loc.id}`)).body, { ...loc, idRec: rec.body.idRec });
    const second = await call('POST', '/v2/rec', recBody({ loc: loc.id }));
    assert.equal(second.status, 400, second.text);
    assert.match(second.body.type, /RecOperacaoInvalida$/);
    assert.equal(second.body.violacoes[0].propriedade, 'rec.loc');

    const withLoc = await call('GET', `/v2/rec?${RANGE}&locationPresente=true`);
    assert.ok(withLoc.body.recs.some((r: { idRec: string }) => r.idRec === rec.body.idRec));
    const listed = await call('GET', `/v2/locrec?${RANGE}&idRecPresente=true`);
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.body.loc.some((l: { id: number }) => l.id === loc.id));

    const unlinked = await call('DELETE', `/v2/locrec/${loc.id}/idRec`);
    assert.equal(unlinked.status, 200, unlinked.text);
    assert.deepEqual(unlinked.body, loc);
    assert.equal((await call('GET', `/v2/rec/${rec.body.idRec}`)).body.loc, undefined);
    const free = await call('GET', `/v2/locrec?${RANGE}&idRecPresente=false`);
    assert.ok(free.body.loc.some((l: { id: number }) => l.id === loc.id));
  });

  it('lets a new recurrence take a location by revision, not an approved one', async () => {
    const loc = await newLoc();
    const rec = await call('POST', '/v2/rec', recBody());
    const revised = await call('PATCH', `/v2/rec/${rec.body.idRec}`, { loc: loc.id });
    assert.equal(revised.status, 200, revised.text);
    assert.equal(revised.body.loc.id, loc.id);
    assert.equal((await call('POST', `/sandbox/rec/${rec.body.idRec}/aprovar`)).status, 200);
    const other = await newLoc();
    const refused = await call('PATCH', `/v2/rec/${rec.body.idRec}`, { loc: other.id });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.violacoes[0].propriedade, 'rec.loc');
  });

  it('answers 404 for an unknown or foreign location', async () => {
    const loc = await newLoc();
    const missing = await call('GET', '/v2/locrec/999999999');
    assert.equal(missing.status, 404);
    assert.match(missing.body.type, /PayloadLocationRecNaoEncontrado$/);
    assert.equal((await call('GET', '/v2/locrec/abc')).status, 404);
    const other = await svc.newParty();
    const foreign = await other.http.request('GET', `/v2/locrec/${loc.id}`, { token: await other.token() });
    assert.equal(foreign.status, 404);
    const scoped = await svc.newParty({ scopes: ['payloadlocationrec.read'] });
    const denied = await scoped.http.request('POST', '/v2/locrec', { token: await scoped.token() });
    assert.equal(denied.status, 403, denied.text);
  });
});
