/**
 * Paying a BR Code (issue 14, item 4): `PUT /v2/gn/pix/:idEnvio/qrcode`. Dynamic codes are fetched from
 * their location and their JWS verified; the charge of another pixd account is concluded by the payment
 * engine at settlement (its read shows the Pix, its receiver's webhook fires); paid, expired and removed
 * charges, malformed codes and tampered signatures are refused with named codes. Real HTTPS.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { cobvBody, txidFor } from './payload-fixtures.ts';
import { verifyPayloadJws } from '../../src/pix/send/qrcode.ts';
import { SendRefused } from '../../src/pix/send/external.ts';

const PROBLEM = 'https://pix.bcb.gov.br/api/v2/error/';
let sequence = 0;
const newIdEnvio = () => `qr${Date.now().toString(36)}${sequence++}`;

describe('paying a BR Code (PUT /v2/gn/pix/:idEnvio/qrcode)', () => {
  let svc: TestService;
  let receiver: Receiver;
  let payer: Party;
  let payee: Party;
  let payerApi: WebhookApi;
  let payeeApi: WebhookApi;

  const pay = (pixCopiaECola: string, idEnvio = newIdEnvio()) =>
    payerApi.call('PUT', `/v2/gn/pix/${idEnvio}/qrcode`, {
      pagador: { chave: payer.chaves[0], infoPagador: 'Pedido 7' },
      pixCopiaECola,
    });
  const saldo = async (api: WebhookApi) => (await api.call('GET', '/v2/gn/saldo/')).body.saldo as string;
  const settled = (idEnvio: string) =>
    waitFor(async () => {
      const read = (await payerApi.call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).body;
      return read.status !== 'EM_PROCESSAMENTO' && read;
    }, `send ${idEnvio} settled`);
  const refusedWith = (res: { status: number; text: string; body: any }, razao: string) => {
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.type, `${PROBLEM}PixEnvioInvalido`, res.text);
    assert.equal(res.body.violacoes[0].razao, razao, res.text);
    assert.equal(res.body.violacoes[0].propriedade, 'pixCopiaECola');
  };
  const newCob = async (valor: string, extra: Record<string, unknown> = {}) => {
    const txid = txidFor('qrpay');
    const res = await payeeApi.call('PUT', `/v2/cob/${txid}`, cobBody(payee.chaves[0], valor, extra));
    assert.equal(res.status, 201, res.text);
    return res.body as { txid: string; pixCopiaECola: string };
  };

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    payer = await svc.newParty();
    payee = await svc.newParty();
    payerApi = webhookApi(payer);
    payeeApi = webhookApi(payee);
    await payerApi.registerPix(`${receiver.url}/payer`);
    await payeeApi.registerPix(`${receiver.url}/payee`);
    const funded = await payerApi.call('POST', '/sandbox/pix/pay', { chave: payer.chaves[0], valor: '200.00' });
    assert.equal(funded.status, 201, funded.text);
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it("pays another account's immediate charge by its dynamic code: the charge is CONCLUIDA with the Pix, its receiver notified, the same cents move", async () => {
    const cob = await newCob('12.34');
    const idEnvio = newIdEnvio();
    const res = await pay(cob.pixCopiaECola, idEnvio);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.valor, '12.34');
    assert.equal(res.body.status, 'EM_PROCESSAMENTO');
    const read = await settled(idEnvio);
    assert.equal(read.status, 'REALIZADO', JSON.stringify(read));
    assert.equal(read.favorecido.chave, payee.chaves[0]);

    const charge = await payeeApi.call('GET', `/v2/cob/${cob.txid}`);
    assert.equal(charge.body.status, 'CONCLUIDA');
    assert.equal(charge.body.pix[0].endToEndId, res.body.e2eId);
    assert.equal(charge.body.pix[0].valor, '12.34');
    assert.equal(charge.body.pix[0].infoPagador, 'Pedido 7');
    const [toPayee] = await receiver.waitForCalls(1, '/payee/pix');
    assert.equal(toPayee.body.pix[0].txid, cob.txid);
    assert.equal(toPayee.body.pix[0].endToEndId, res.body.e2eId);
    assert.equal(await saldo(payerApi), '187.66');
    assert.equal(await saldo(payeeApi), '12.34');

    // The same idEnvio answers the same send; a new one is refused: the charge is paid.
    const replay = await pay(cob.pixCopiaECola, idEnvio);
    assert.equal(replay.status, 201, replay.text);
    assert.equal(replay.body.e2eId, res.body.e2eId);
    refusedWith(await pay(cob.pixCopiaECola), 'cobranca_paga');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('pays a due charge the amount due today, and a static code of another account its fixed amount', async () => {
    const txid = txidFor('qrcobv');
    const cobv = await payeeApi.call('PUT', `/v2/cobv/${txid}`, cobvBody(svc, payee.chaves[0], '50.00', 10));
    assert.equal(cobv.status, 201, cobv.text);
    const idEnvio = newIdEnvio();
    const res = await pay(cobv.body.pixCopiaECola, idEnvio);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.valor, '45.00', 'original 50.00 less the 5.00 discount before the due date');
    assert.equal((await settled(idEnvio)).status, 'REALIZADO');
    assert.equal((await payeeApi.call('GET', `/v2/cobv/${txid}`)).body.status, 'CONCLUIDA');

    const qr = await payeeApi.call('POST', '/v2/gn/qrcodes/estatico', {
      chave: payee.chaves[0],
      valor: '3.21',
      txid: 'loja42',
    });
    assert.equal(qr.status, 201, qr.text);
    const staticId = newIdEnvio();
    const paid = await pay(qr.body.qrcode, staticId);
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.valor, '3.21');
    assert.equal((await settled(staticId)).status, 'REALIZADO');
    const received = await payeeApi.call('GET', `/v2/pix/${paid.body.e2eId}`);
    assert.equal(received.body.txid, 'loja42');
    const noAmount = await payeeApi.call('POST', '/v2/gn/qrcodes/estatico', { chave: payee.chaves[0] });
    refusedWith(await pay(noAmount.body.qrcode), 'qrcode_sem_valor');
    const db = svc.service.ctx.db;
    await assertBalanceMatchesLines(db, payer.accountId, await saldo(payerApi));
    await assertBalanceMatchesLines(db, payee.accountId, await saldo(payeeApi));
    await assertLedgerBalanced(db);
  });

  it('refuses expired and removed charges, own charges, malformed codes and broken CRCs with named codes (4xx, never 5xx)', async () => {
    const before = await saldo(payerApi);
    const removed = await newCob('11.00');
    const patch = await payeeApi.call('PATCH', `/v2/cob/${removed.txid}`, {
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    });
    assert.equal(patch.status, 200, patch.text);
    refusedWith(await pay(removed.pixCopiaECola), 'cobranca_removida');

    const own = await payerApi.call('PUT', `/v2/cob/${txidFor('own')}`, cobBody(payer.chaves[0], '11.00'));
    refusedWith(await pay(own.body.pixCopiaECola), 'cobranca_propria');

    refusedWith(await pay('not a br code'), 'qrcode_invalido');
    const good = (await newCob('11.00')).pixCopiaECola;
    const badCrc = good.slice(0, -4) + (good.endsWith('0000') ? '1111' : '0000');
    refusedWith(await pay(badCrc), 'qrcode_invalido');
    const tooLong = await pay('0'.repeat(600));
    assert.equal(tooLong.status, 400, tooLong.text);

    const expiring = await newCob('11.00', { calendario: { expiracao: 60 } });
    svc.advance(61);
    refusedWith(await pay(expiring.pixCopiaECola), 'cobranca_expirada');
    assert.equal(await saldo(payerApi), before, 'nothing held');
  });

  it('verifies the JWS as a payer would: a tampered payload, another key, or a jku off the location host are refused', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    const host = 'pixd.example:8443';
    const sign = (payload: object, jku = `https://${host}/.well-known/jwks.json`) =>
      new CompactSign(Buffer.from(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'RS256', kid: 'k1', jku })
        .sign(privateKey);
    const jwks = async () => ({ keys: [jwk] });
    const genuine = await sign({ txid: 'x', valor: { original: '1.00' } });
    assert.deepEqual(await verifyPayloadJws(genuine, host, jwks), { txid: 'x', valor: { original: '1.00' } });

    const [header, , signature] = genuine.split('.');
    const forged = Buffer.from(JSON.stringify({ txid: 'x', valor: { original: '0.01' } })).toString('base64url');
    const refusedSignature = (error: unknown) =>
      error instanceof SendRefused && error.code === 'qrcode_assinatura_invalida' && error.status === 400;
    await assert.rejects(verifyPayloadJws(`${header}.${forged}.${signature}`, host, jwks), refusedSignature);
    const other = await generateKeyPair('RS256');
    const otherSet = async () => ({ keys: [{ ...(await exportJWK(other.publicKey)), kid: 'k1', alg: 'RS256' }] });
    await assert.rejects(verifyPayloadJws(genuine, host, otherSet), refusedSignature);
    const offHost = await sign({ txid: 'x' }, 'https://attacker.example/jwks.json');
    await assert.rejects(verifyPayloadJws(offHost, host, jwks), refusedSignature);
    await assert.rejects(verifyPayloadJws('garbage', host, jwks), refusedSignature);
  });
});
