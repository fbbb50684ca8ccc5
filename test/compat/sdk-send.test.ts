/**
 * Money out through the official Efí Node SDK, unchanged (only its base address is pointed at pixd):
 * account A pays account B's charge by its BR Code (`pixQrCodePay`), B's charge is CONCLUIDA and B's webhook
 * received, the same cents leave A and reach B; a `pixSend` of 15.00 ends NAO_REALIZADO with the hold
 * released; reads by `pixSendDetail`, `pixSendDetailId`, `pixSendList`. Funding uses the SDK too: A's own
 * charges of 10.00, which the sandbox's fictitious payer pays.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EfiPay } from './efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver } from '../helpers/receiver.ts';
import { sdkFor, sdkForParty } from '../helpers/sdk.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';

let sequence = 0;
const newIdEnvio = () => `sdk${Date.now().toString(36)}${sequence++}`;

describe('official Node SDK: sending Pix and paying BR Codes', () => {
  let svc: TestService;
  let restore: () => void;
  let receiver: Receiver;
  let a: EfiPay;
  let b: EfiPay;
  let keyA: string;
  let partyB: Party;
  let dir: string;

  const saldo = async (efi: EfiPay) => ((await efi.getAccountBalance()) as { saldo: string }).saldo;

  before(async () => {
    svc = await startTestService();
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    const c = svc.service.credentials;
    keyA = c.chaves[0];
    a = sdkFor(svc);
    partyB = await svc.newParty({ nome: 'Loja B Ltda' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-sdk-send-'));
    b = sdkForParty(partyB, dir, 'b');
    await a.pixConfigWebhook({ chave: keyA }, { webhookUrl: `${receiver.url}/a` });
    await b.pixConfigWebhook({ chave: partyB.chaves[0] }, { webhookUrl: `${receiver.url}/b` });
    // A's funds: three charges of 10.00, paid by the sandbox's fictitious payer.
    for (let i = 0; i < 3; i++) await a.pixCreateImmediateCharge({}, cobBody(keyA, '10.00'));
    await waitFor(async () => (await saldo(a)) === '30.00', "A's charges paid by the sandbox payer");
  });
  after(async () => {
    restore?.();
    await receiver?.close();
    await svc?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("account A pays account B's charge by its BR Code: B's charge CONCLUIDA and B's webhook received, the same cents leave A and reach B", async () => {
    const cob = await b.pixCreateImmediateCharge({}, cobBody(partyB.chaves[0], '12.34'));
    const idEnvio = newIdEnvio();
    const sent = await a.pixQrCodePay(
      { idEnvio },
      { pagador: { chave: keyA, infoPagador: 'Compra na loja B' }, pixCopiaECola: cob.pixCopiaECola },
    );
    assert.equal(sent.idEnvio, idEnvio);
    assert.equal(sent.valor, '12.34');
    assert.equal(sent.status, 'EM_PROCESSAMENTO');

    const [toB] = await receiver.waitForCalls(1, '/b/pix');
    assert.equal(toB.body.pix[0].txid, cob.txid);
    assert.equal(toB.body.pix[0].endToEndId, sent.e2eId);
    const charge = await b.pixDetailCharge({ txid: cob.txid });
    assert.equal(charge.status, 'CONCLUIDA');
    assert.equal(charge.pix![0].endToEndId, sent.e2eId);
    assert.equal(charge.pix![0].valor, '12.34');

    const detail = await waitFor(async () => {
      const d = await a.pixSendDetailId({ idEnvio });
      return d.status === 'REALIZADO' && d;
    }, 'the send REALIZADO');
    assert.equal(detail.endToEndId, sent.e2eId);
    assert.deepEqual(await a.pixSendDetail({ e2eid: sent.e2eId }), detail);
    assert.equal(await saldo(a), '17.66');
    assert.equal(await saldo(b), '12.34');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('medList and medDefense: B lists the infraction opened against the Pix A sent it, and accepts it', async () => {
    const inicio = new Date(svc.clock.nowMs() - 3_600_000).toISOString();
    const fim = new Date(svc.clock.nowMs() + 3_600_000).toISOString();
    const sentByA = (await a.pixSendList({ inicio, fim })) as unknown as { pix: { endToEndId: string }[] };
    const endToEndId = sentByA.pix[0].endToEndId;
    // The payer's side opens it (a sandbox tool; the SDK has no method for it).
    const opened = await partyB.http.request('POST', '/sandbox/infracoes', {
      token: await partyB.token(),
      body: { endToEndId, motivo: 'Pagamento contestado.' },
    });
    assert.equal(opened.status, 201, opened.text);
    const listed = await b.medList({ inicio, fim });
    const infraction = listed.infracoes.find((i) => i.endToEndId === endToEndId)!;
    assert.equal(infraction.status, 'ABERTA');
    assert.equal(infraction.valor, '12.34');
    await b.medDefense({ idInfracao: infraction.idInfracao }, { analise: 'aceito', justificativa: 'Devolvemos.' });
    const after = await b.medList({ inicio, fim });
    assert.equal(after.infracoes.find((i) => i.idInfracao === infraction.idInfracao)!.status, 'ACEITA');
    assert.equal(await saldo(b), '0.00', 'the 12.34 went back to the payer');
    assert.equal(await saldo(a), '30.00', 'and reached A, an account of this pixd');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('a pixSend of 15.00 ends NAO_REALIZADO with the hold released; bad input is refused with nome and mensagem', async () => {
    const start = await saldo(a);
    const idEnvio = newIdEnvio();
    const body = { valor: '15.00', pagador: { chave: keyA }, favorecido: { chave: 'fornecedor@example.com' } };
    const sent = await a.pixSend({ idEnvio }, body);
    assert.equal(sent.status, 'EM_PROCESSAMENTO');
    const detail = await waitFor(async () => {
      const d = await a.pixSendDetailId({ idEnvio });
      return d.status !== 'EM_PROCESSAMENTO' && d;
    }, 'the send settled');
    assert.equal(detail.status, 'NAO_REALIZADO');
    assert.equal(await saldo(a), start, 'hold released');
    const calls = await waitFor(
      async () => receiver.callsTo('/a/pix').find((c) => c.body.pix[0].gnExtras?.idEnvio === idEnvio),
      "A's webhook with the outcome",
    );
    assert.equal(calls.body.pix[0].status, 'NAO_REALIZADO');

    const inicio = new Date(svc.clock.nowMs() - 3_600_000).toISOString();
    const fim = new Date(svc.clock.nowMs() + 3_600_000).toISOString();
    const list = (await a.pixSendList({ inicio, fim })) as unknown as { pix: { idEnvio: string }[] };
    assert.ok(list.pix.some((p) => p.idEnvio === idEnvio));

    await assert.rejects(a.pixSend({ idEnvio: newIdEnvio() }, { ...body, valor: '0.00' }), (error: unknown) => {
      const e = error as { nome: string; mensagem: string };
      return e.nome === 'valor_invalido' && typeof e.mensagem === 'string';
    });
    await assertLedgerBalanced(svc.service.ctx.db);
  });
});
