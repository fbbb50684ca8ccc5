/**
 * Faults on demand (docs/faults.md) as an integrator meets them: a node started with `pixd/testing`'s
 * startPixd, the official SDK pointed at it (src/testing/point-sdk.ts through `pixd.pointSdk()`), each fault
 * set with `pixd.sandbox.faults` (the API) or `pixd fault` (the CLI), and seen through the SDK's own answers:
 * a webhook delivery failing with 503 twice and then arriving, the rate limit spent, a refund NAO_REALIZADO,
 * a key lookup not found and timing out, a card refused with a chosen code; a reset clears them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startPixd } from '../../src/testing/index.ts';
import type { Pixd } from '../../src/testing/public.d.ts';
import { EfiPay } from '../compat/efipay.ts';
import { Receiver } from '../helpers/receiver.ts';
import { HttpsClient } from '../helpers/https-client.ts';
import { waitFor } from '../helpers/wait.ts';
import { runPixd } from '../helpers/cli.ts';
import { CARDS, customer, items, paymentToken } from '../billing/helpers.ts';

const cob = (chave: string, original: string) => ({ calendario: { expiracao: 3600 }, valor: { original }, chave });
/** What the SDK rejects with: the route family's error body. */
const refusal = (error: unknown) => error as { nome?: string; mensagem?: string; status?: number; title?: string };

describe('faults on demand, through the official SDK', () => {
  let pixd: Pixd;
  let unpoint: () => void;
  let efi: EfiPay;
  let receiver: Receiver;
  let chave: string;

  before(async () => {
    pixd = await startPixd();
    unpoint = await pixd.pointSdk();
    efi = new EfiPay(pixd.sdkOptions);
    chave = pixd.credentials.chaves[0];
    receiver = await Receiver.start({ clientCaPem: pixd.httpsOptions.ca });
    await efi.pixConfigWebhook({ chave }, { webhookUrl: receiver.url });
  });
  after(async () => {
    unpoint?.();
    await receiver?.close();
    await pixd?.stop();
  });

  /** The delivery attempts of a received Pix's webhook, as the sandbox's inspection lists them. */
  const attemptsOf = async (endToEndId: string) => {
    const { entregas } = (await pixd.api.pix('GET', '/sandbox/webhooks/entregas?topico=webhook.pix')) as {
      entregas: { assunto: string | null; tentativas: { statusHttp: number | null }[] }[];
    };
    return entregas.find((e) => e.assunto === endToEndId)?.tentativas ?? [];
  };

  it('webhook: the next 2 deliveries fail with 503 (recorded, nothing sent), the retry reaches the receiver', async () => {
    await pixd.sandbox.faults.set('webhook', { status: 503, vezes: 2 });
    const charge = await efi.pixCreateImmediateCharge({}, cob(chave, '12.34'));
    const e2e = String((await pixd.sandbox.pay(charge.txid)).endToEndId);
    await waitFor(async () => (await attemptsOf(e2e)).length === 1, 'the first attempt, failed');
    await pixd.sandbox.clock.advance('1m');
    await waitFor(async () => (await attemptsOf(e2e)).length === 2, 'the second attempt, failed');
    assert.equal(receiver.callsTo('/pix').length, 0, 'a simulated failure sends nothing');
    await pixd.sandbox.clock.advance('5m');
    const [call] = await receiver.waitForCalls(1, '/pix');
    await waitFor(async () => (await attemptsOf(e2e)).length === 3, 'the third attempt recorded');
    assert.equal(call.body.pix[0].txid, charge.txid);
    assert.deepEqual(
      (await attemptsOf(e2e)).map((a) => a.statusHttp),
      [503, 503, 200],
    );
    assert.deepEqual(await pixd.sandbox.faults.list(), [], 'spent');
    await pixd.sandbox.clock.reset();
  });

  it('limite: rate-limited requests answer 429 while it lasts; reads are not limited', async () => {
    await pixd.sandbox.faults.set('limite', { vezes: 2 });
    for (let i = 0; i < 2; i++)
      await assert.rejects(efi.pixCreateImmediateCharge({}, cob(chave, '20.00')), (error) => {
        assert.equal(refusal(error).status, 429);
        return true;
      });
    const created = await efi.pixCreateImmediateCharge({}, cob(chave, '20.00'));
    assert.equal(created.status, 'ATIVA');
    await pixd.sandbox.faults.set('limite');
    await efi.pixDetailCharge({ txid: created.txid });
    await assert.rejects(
      efi.pixCreateImmediateCharge({}, cob(chave, '20.00')),
      (error) => refusal(error).status === 429,
    );
    await pixd.sandbox.faults.clear('limite');
    assert.equal((await efi.pixCreateImmediateCharge({}, cob(chave, '20.00'))).status, 'ATIVA');
  });

  it('devolucao: a refund ends NAO_REALIZADO with the chosen reason, the next one DEVOLVIDO', async () => {
    const pix = await pixd.sandbox.pay(chave, { valor: '40.00' });
    await pixd.sandbox.faults.set('devolucao', { motivo: 'Conta do pagador encerrada.', vezes: 1 });
    const e2eId = String(pix.endToEndId);
    const asked = await efi.pixDevolution({ e2eId, id: 'falha1' }, { valor: '1.00' });
    assert.equal(asked.status, 'EM_PROCESSAMENTO');
    const refused = await waitFor(async () => {
      const read = await efi.pixDetailDevolution({ e2eId, id: 'falha1' });
      return read.status !== 'EM_PROCESSAMENTO' && read;
    }, 'the refund settled');
    assert.equal(refused.status, 'NAO_REALIZADO');
    assert.equal((refused as { motivo?: string }).motivo, 'Conta do pagador encerrada.');
    await efi.pixDevolution({ e2eId, id: 'falha2' }, { valor: '1.00' });
    await waitFor(
      async () => (await efi.pixDetailDevolution({ e2eId, id: 'falha2' })).status === 'DEVOLVIDO',
      'the next refund DEVOLVIDO',
    );
  });

  it('chave: a send by key answers chave_nao_encontrada, then consulta_chave_tempo_esgotado after its wait', async () => {
    const body = { valor: '1.00', pagador: { chave }, favorecido: { chave: 'fornecedor@example.com' } };
    await pixd.sandbox.faults.set('chave', { resultado: 'nao_encontrada', vezes: 1 });
    await assert.rejects(efi.pixSend({ idEnvio: 'faltachave1' }, body), (error) => {
      assert.equal(refusal(error).nome, 'chave_nao_encontrada');
      assert.match(String(refusal(error).mensagem), /fornecedor@example\.com/);
      return true;
    });
    await pixd.sandbox.faults.set('chave', { resultado: 'tempo_esgotado', esperaMs: 300 });
    const startedMs = Date.now();
    await assert.rejects(
      efi.pixSend({ idEnvio: 'faltachave2' }, body),
      (error) => refusal(error).nome === 'consulta_chave_tempo_esgotado',
    );
    assert.ok(Date.now() - startedMs >= 300, 'the send waited for the lookup');
    await pixd.sandbox.faults.clear();
    assert.equal((await efi.pixSend({ idEnvio: 'faltachave3' }, body)).status, 'EM_PROCESSAMENTO');
  });

  it('envio, instituicao: the receiving institution rejects with AC03, is down for 10 minutes, then slow', async () => {
    const send = (idEnvio: string) =>
      efi.pixSend({ idEnvio }, { valor: '1.00', pagador: { chave }, favorecido: { chave: 'fornecedor@example.com' } });
    const outcome = (idEnvio: string) =>
      waitFor(async () => {
        const read = await efi.pixSendDetailId({ idEnvio });
        return read.status !== 'EM_PROCESSAMENTO' && (read as typeof read & { motivo?: string });
      }, `send ${idEnvio} settled`);

    await pixd.sandbox.faults.set('envio', { codigo: 'AC03', vezes: 1 });
    await send('instituicao1');
    const rejected = await outcome('instituicao1');
    assert.equal(rejected.status, 'NAO_REALIZADO');
    assert.equal(rejected.motivo, 'Conta do recebedor inexistente ou inválida. (AC03)');
    const webhook = await waitFor(
      async () => receiver.callsTo('/pix').find((c) => c.body.pix[0].gnExtras?.idEnvio === 'instituicao1'),
      "the payer key's webhook with the outcome",
    );
    assert.equal(webhook.body.pix[0].gnExtras.erro.motivo, rejected.motivo);

    await pixd.sandbox.faults.set('instituicao', { estado: 'fora', durante: '10m' });
    await send('instituicao2');
    assert.match(String((await outcome('instituicao2')).motivo), /\(AB03\)$/);
    await pixd.sandbox.clock.advance('10m');
    assert.deepEqual(await pixd.sandbox.faults.list(), [], 'the period is over on the account clock');

    await pixd.sandbox.faults.set('instituicao', { estado: 'lenta', atrasoMs: 1500, vezes: 1 });
    await send('instituicao3');
    const slow = await outcome('instituicao3');
    assert.equal(slow.status, 'REALIZADO');
    assert.ok(Date.parse(slow.horario.liquidacao) - Date.parse(slow.horario.solicitacao) >= 1500, 'answered late');
    await pixd.sandbox.clock.reset();
  });

  it('cartao (set with `pixd fault`): a card refused with the chosen code; a reset clears every fault', async () => {
    const credentials = `${pixd.dataDir}/credentials.json`;
    const set = await runPixd([
      'fault',
      'set',
      'cartao',
      '--codigo',
      '51',
      '--vezes',
      '1',
      '--credentials',
      credentials,
    ]);
    assert.equal(set.status, 0, set.stderr);
    assert.match(set.stdout, /fault set: cartao/);
    const anonymous = new HttpsClient(pixd.baseUrl, fs.readFileSync(pixd.credentials.caCertificate, 'utf8'));
    const token = () => paymentToken(anonymous, pixd.credentials.account.payeeCode, CARDS.approved);
    const card = async () => ({
      items,
      payment: { credit_card: { customer, installments: 1, payment_token: await token() } },
    });
    const refused: any = await efi.createOneStepCharge({}, (await card()) as any);
    assert.equal(refused.data.status, 'unpaid');
    assert.equal(refused.data.refusal.reason, 'Insufficient funds or credit limit. (code 51)');
    const approved: any = await efi.createOneStepCharge({}, (await card()) as any);
    assert.equal(approved.data.status, 'approved', 'one time only');

    await pixd.sandbox.faults.set('webhook', { status: 500 });
    const limite = await pixd.sandbox.faults.set('limite', { durante: '1h' });
    assert.ok(Date.parse(String(limite.ate)) - Date.now() > 3_500_000, "an hour of the account's clock");
    assert.deepEqual((await pixd.sandbox.faults.list()).map((f) => f.tipo).sort(), ['limite', 'webhook']);
    await pixd.sandbox.reset();
    assert.deepEqual(await pixd.sandbox.faults.list(), []);
    assert.equal((await efi.pixCreateImmediateCharge({}, cob(chave, '20.00'))).status, 'ATIVA');
  });
});
