/**
 * The payer's side of automatic Pix QR codes: the signed recurrence payload at a /locrec location, the
 * composite BR Codes of journeys 2, 3 and 4 (`dadosQR` of GET /v2/rec/:idRec), and the immediate charge's
 * payload naming the recurrence it is paired with (journey 3). Also through the official SDK's reader.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { crc16Ccitt, parseBrCode, PIX_GUI } from '../../src/platform/brcode.ts';
import { cobBody, startTestService, type TestService } from '../helpers/service.ts';
import { cobvBody, fetchLocation, payloadAt, txidFor } from './payload-fixtures.ts';
import { recBody } from './rec-fixtures.ts';

/** Decodes a composite code field by field and checks everything the manual's layout fixes. */
function decodeComposite(code: string, expect: { recLocation: string; chargeLocation?: string }) {
  const parsed = parseBrCode(code);
  assert.ok(parsed.valid, 'CRC16 valid and last');
  assert.equal(code.slice(-4), crc16Ccitt(code.slice(0, -4)));
  assert.deepEqual(
    [...parsed.fields.keys()],
    ['00', ...(expect.chargeLocation ? ['01'] : []), '26', '52', '53', '58', '59', '60', '62', '80', '63'],
    'the template order of the standard examples',
  );
  assert.equal(parsed.fields.get('00'), '01');
  if (expect.chargeLocation) assert.equal(parsed.fields.get('01'), '12', 'single use: the charge is paid once');
  assert.equal(parsed.fields.get('52'), '0000');
  assert.equal(parsed.fields.get('53'), '986');
  assert.equal(parsed.fields.get('58'), 'BR');
  assert.equal(parsed.additionalData.get('05'), '***');
  assert.equal(parsed.merchantAccount.get('00'), PIX_GUI);
  assert.equal(parsed.merchantAccount.get('25'), expect.chargeLocation);
  assert.equal(parsed.merchantAccount.size, expect.chargeLocation ? 2 : 1);
  assert.deepEqual(
    [...parsed.recurrenceAccount.entries()],
    [
      ['00', PIX_GUI],
      ['25', expect.recLocation],
    ],
  );
  return parsed;
}

describe('recurrence payloads and composite QR codes', () => {
  let svc: TestService;
  let token: string;
  let chave: string;
  const call = (method: string, path: string, body?: unknown) => svc.demo.http.request(method, path, { token, body });
  const newLoc = async () => {
    const res = await call('POST', '/v2/locrec');
    assert.equal(res.status, 201, res.text);
    return res.body as { id: number; location: string };
  };
  const newRec = async (extra: Record<string, unknown>) => {
    const res = await call('POST', '/v2/rec', recBody(extra));
    assert.equal(res.status, 201, res.text);
    return res.body as { idRec: string; [k: string]: any };
  };
  const newCob = async () => {
    const res = await call('PUT', `/v2/cob/${txidFor('RecQr')}`, cobBody(chave, '35.85'));
    assert.equal(res.status, 201, res.text);
    return res.body as { txid: string; location: string; pixCopiaECola: string };
  };

  before(async () => {
    svc = await startTestService();
    token = await svc.demo.token();
    chave = svc.demo.chaves[0];
  });
  after(() => svc.close());

  it('journey 2: dadosQR carries the recurrence location in ID 80, whose signed payload is RecPayload', async () => {
    const loc = await newLoc();
    const rec = await newRec({ loc: loc.id });
    const read = await call('GET', `/v2/rec/${rec.idRec}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.dadosQR.jornada, 'JORNADA_2');
    const parsed = decodeComposite(read.body.dadosQR.pixCopiaECola, { recLocation: loc.location });
    const { rows } = await svc.service.ctx.db.query<{ nome: string; cidade: string; documento: string }>(
      'select nome, cidade, documento from accounts where id = $1',
      [svc.demo.accountId],
    );
    const account = rows[0];
    assert.ok(account.nome.startsWith(parsed.fields.get('59')!.slice(0, 5)), 'merchant name is the account');
    assert.ok(parsed.fields.get('60')!.length > 0);

    // What the payer's institution does with ID 80: fetch it, no credentials, and verify against the JWKS.
    const { header, payload } = await payloadAt(svc, parsed.recurrenceAccount.get('25')!);
    assert.equal(header.alg, 'RS256');
    assert.equal(header.jku, `${svc.config.publicUrl}/.well-known/jwks.json`);
    assert.deepEqual(payload, {
      idRec: rec.idRec,
      vinculo: rec.vinculo,
      calendario: rec.calendario,
      valor: { valorRec: '35.85' },
      recebedor: {
        [account.documento.length === 14 ? 'cnpj' : 'cpf']: account.documento,
        nome: account.nome,
        ispbParticipante: '99999008',
      },
      politicaRetentativa: 'NAO_PERMITE',
      atualizacao: rec.atualizacao,
    });

    // A reader that follows only ID 26 finds no URL there (docs/payload.md).
    const detail = await call('POST', '/v2/gn/qrcodes/detalhar', { pixCopiaECola: read.body.dadosQR.pixCopiaECola });
    assert.equal(detail.status, 400, detail.text);
    assert.equal(detail.body.nome, 'qrcode_invalido');

    // Approved, it is still served (atualizacao says so); cancelled, the standard's 400.
    assert.equal((await call('POST', `/sandbox/rec/${rec.idRec}/aprovar`)).status, 200);
    const approved = await payloadAt(svc, loc.location);
    assert.deepEqual(
      approved.payload.atualizacao.map((a: { status: string }) => a.status),
      ['CRIADA', 'APROVADA'],
    );
    assert.equal((await call('PATCH', `/v2/rec/${rec.idRec}`, { status: 'CANCELADA' })).status, 200);
    const closed = await fetchLocation(svc, loc.location);
    assert.equal(closed.status, 400, closed.text);
    assert.match(closed.body.type, /\/RecPayloadOperacaoInvalida$/);
    assert.equal(closed.body.violacoes[0].propriedade, 'recUrlAccessToken');
  });

  it('journey 3: the immediate charge and the recurrence in one code, and the charge payload names the recurrence', async () => {
    const cob = await newCob();
    const loc = await newLoc();
    const rec = await newRec({ loc: loc.id, ativacao: { dadosJornada: { txid: cob.txid } } });
    const read = await call('GET', `/v2/rec/${rec.idRec}?txid=${cob.txid}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.dadosQR.jornada, 'JORNADA_3');
    const code = read.body.dadosQR.pixCopiaECola as string;
    const parsed = decodeComposite(code, { recLocation: loc.location, chargeLocation: cob.location });
    // The charge part is the charge's own dynamic code: same merchant fields.
    const own = parseBrCode(cob.pixCopiaECola);
    for (const id of ['59', '60']) assert.equal(parsed.fields.get(id), own.fields.get(id));

    const { payload } = await payloadAt(svc, parsed.merchantAccount.get('25')!);
    assert.equal(payload.txid, cob.txid);
    assert.deepEqual(payload.recorrencia, { idRec: rec.idRec, location: loc.location });
    const recPayload = await payloadAt(svc, payload.recorrencia.location);
    assert.equal(recPayload.payload.idRec, rec.idRec);

    // A charge no recurrence names has no link.
    const plain = await newCob();
    assert.equal((await payloadAt(svc, plain.location)).payload.recorrencia, undefined);

    // Our own decoder follows ID 26 of the composite code to the charge, link included.
    const detail = await call('POST', '/v2/gn/qrcodes/detalhar', { pixCopiaECola: code });
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.body.txid, cob.txid);
    assert.deepEqual(detail.body.recorrencia, { idRec: rec.idRec, location: loc.location });

    // The official SDK's reader (pixQrCodeDetail) follows ID 26 too: the charge, with the link.
    const run = promisify(execFile);
    const child = fileURLToPath(new URL('./qrcode-detail.child.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', child, code], {
      env: {
        ...process.env,
        PIXD_CREDENTIALS_FILE: svc.service.credentialsPath,
        NODE_EXTRA_CA_CERTS: svc.service.credentials.caCertificate,
      },
      timeout: 60_000,
    });
    const [sdk] = JSON.parse(stdout.trim().split('\n').pop()!);
    assert.ok(sdk.ok, String(sdk.error));
    assert.equal(sdk.detail.tipoCob, 'cob');
    assert.equal(sdk.detail.txid, cob.txid);
    assert.deepEqual(sdk.detail.recorrencia, { idRec: rec.idRec, location: loc.location });
  });

  it('journey 4 with a due charge; no dadosQR while a location is missing', async () => {
    const loc = await newLoc();
    const rec = await newRec({ loc: loc.id });
    const cobv = await call('PUT', `/v2/cobv/${txidFor('RecQrV')}`, cobvBody(svc, chave));
    assert.equal(cobv.status, 201, cobv.text);
    const read = await call('GET', `/v2/rec/${rec.idRec}?txid=${cobv.body.txid}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.dadosQR.jornada, 'JORNADA_4');
    decodeComposite(read.body.dadosQR.pixCopiaECola, { recLocation: loc.location, chargeLocation: cobv.body.location });

    const bare = await newRec({});
    assert.equal((await call('GET', `/v2/rec/${bare.idRec}`)).body.dadosQR, undefined, 'no recurrence location');
    const cob = await newCob();
    const linked = await call('GET', `/v2/rec/${rec.idRec}?txid=${cob.txid}`);
    assert.equal(linked.body.dadosQR.jornada, 'JORNADA_3');
    const cobLoc = (await call('GET', `/v2/cob/${cob.txid}`)).body.loc.id;
    assert.equal((await call('DELETE', `/v2/loc/${cobLoc}/txid`)).status, 200);
    const unlinked = await call('GET', `/v2/rec/${rec.idRec}?txid=${cob.txid}`);
    assert.equal(unlinked.status, 200, unlinked.text);
    assert.equal(unlinked.body.dadosQR, undefined, 'the charge has no location');
  });

  it('a location that serves nothing, or an unknown token, answers 404 RecPayloadNaoEncontrado', async () => {
    const loc = await newLoc();
    for (const location of [loc.location, loc.location.replace(/[0-9a-f]{32}$/, '0'.repeat(32))]) {
      const res = await fetchLocation(svc, location);
      assert.equal(res.status, 404, res.text);
      assert.match(res.body.type, /\/RecPayloadNaoEncontrado$/);
    }
    const rec = await newRec({ loc: loc.id });
    assert.equal((await payloadAt(svc, loc.location)).payload.idRec, rec.idRec);
    assert.equal((await call('DELETE', `/v2/locrec/${loc.id}/idRec`)).status, 200);
    assert.equal((await fetchLocation(svc, loc.location)).status, 404, 'unlinked: serves nothing again');
  });
});
