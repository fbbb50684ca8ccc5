/**
 * The rest of the Pix methods of the official Node SDK (issue 32, "Pix (4)"), through the SDK over HTTPS:
 * same-owner sends (`pixSendSameOwnership`) reach only an account of the payer's document; the key-lookup
 * buckets (`pixKeysBucket`) follow the DICT's counting rules and an empty bucket refuses the send's lookup;
 * receipts (`pixGetReceipt`) are PDFs that pdftotext reads back; split refunds (`pixSplitDevolution`) take each
 * beneficiary's part back in proportion to the division, exactly in total, and never below zero.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { EfiPay } from './efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver } from '../helpers/receiver.ts';
import { sdkFor, sdkForParty } from '../helpers/sdk.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { configBody, newBeneficiary } from '../pix/split-fixtures.ts';

let sequence = 0;
const newIdEnvio = () => `extra${Date.now().toString(36)}${sequence++}`;
/** A person's CPF (valid check digits): a person's buckets hold 100 tokens. */
const PERSON_CPF = '52998224725';

describe('official Node SDK: same-owner sends, key-lookup buckets, receipts, split refunds', () => {
  let svc: TestService;
  let restore: () => void;
  let receiver: Receiver;
  let dir: string;
  let a: EfiPay;
  let keyA: string;
  let sameOwner: Party;
  let other: Party;

  const sdkOf = (party: Party, name: string) => sdkForParty(party, dir, name);
  const refusal = async (call: Promise<unknown>) =>
    call.then(
      () => assert.fail('expected a refusal'),
      (error: Record<string, unknown>) => error,
    );
  const pdfText = async (pdf: Buffer) => {
    const file = path.join(dir, `receipt-${sequence++}.pdf`);
    fs.writeFileSync(file, pdf);
    return (await promisify(execFile)('pdftotext', ['-layout', file, '-'])).stdout;
  };

  before(async () => {
    svc = await startTestService();
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-sdk-extras-'));
    a = sdkFor(svc);
    keyA = svc.demo.chaves[0];
    sameOwner = await svc.newParty({
      nome: 'Filial do mesmo titular',
      documento: svc.service.credentials.account.documento,
    });
    other = await svc.newParty({ nome: 'Outro titular Ltda' });
    await a.pixConfigWebhook({ chave: keyA }, { webhookUrl: `${receiver.url}/a` });
    for (let i = 0; i < 2; i++) await a.pixCreateImmediateCharge({}, cobBody(keyA, '10.00'));
    await waitFor(
      async () => ((await a.getAccountBalance()) as { saldo: string }).saldo === '20.00',
      'funded by the sandbox payer',
    );
  });
  after(async () => {
    restore?.();
    await receiver?.close();
    await svc?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("sends to an account of the payer's own document, refuses another owner by name; the receipt reads back", async () => {
    const before = (await a.pixKeysBucket()).baldeA;
    assert.deepEqual(
      { ...before, fichasDisponiveis: undefined },
      {
        tiposChave: ['cpf', 'cnpj', 'evp'],
        capacidade: 1000,
        fichasDisponiveis: undefined,
        taxaDeReposicaoFichas: 2,
        periodoReposicaoEmSegundos: 60,
      },
    );
    const body = (chave: string) => ({ valor: '5.00', pagador: { chave: keyA }, favorecido: { chave } });
    const idEnvio = newIdEnvio();
    const sent = await a.pixSendSameOwnership({ idEnvio }, body(sameOwner.chaves[0]));
    assert.equal(sent.status, 'EM_PROCESSAMENTO');
    const b = sdkOf(sameOwner, 'same');
    await waitFor(async () => ((await b.getAccountBalance()) as { saldo: string }).saldo === '5.00', 'credited');

    const refused = await refusal(a.pixSendSameOwnership({ idEnvio: newIdEnvio() }, body(other.chaves[0])));
    assert.equal(refused.nome, 'titularidade_divergente');
    // A key of another institution (the sandbox's names another holder) is refused the same way.
    const external = await refusal(
      a.pixSendSameOwnership({ idEnvio: newIdEnvio() }, body('0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0')),
    );
    assert.equal(external.nome, 'titularidade_divergente');
    assert.equal(((await a.getAccountBalance()) as { saldo: string }).saldo, '15.00', 'only the 5.00 left');
    // The DICT's counting: three keys looked up (-3), one payment order sent (+1).
    assert.equal((await a.pixKeysBucket()).baldeA.fichasDisponiveis, before.fichasDisponiveis - 2);
    await assertLedgerBalanced(svc.service.ctx.db);

    const done = await waitFor(async () => {
      const d = await a.pixSendDetailId({ idEnvio });
      return d.status === 'REALIZADO' && d;
    }, 'the send REALIZADO');
    const text = await pdfText(await a.pixGetReceipt({ idEnvio }));
    assert.match(text, /Comprovante de Pix enviado/);
    assert.match(text, /R\$ 5,00/);
    assert.match(text, new RegExp(done.endToEndId));
    assert.match(text, /horário de Brasília/);
    assert.match(text, /\*\*\.\d{3}\.\d{3}\/\d{4}-\*\*/, 'the documents masked');
    assert.ok(!text.includes(svc.service.credentials.account.documento), 'never the whole document');
    assert.match(text, /Filial do mesmo titular/);
  });

  it("answers the receipt of a received Pix by the charge's txid, and 404 for a Pix the account does not have", async () => {
    const cob = await a.pixCreateImmediateCharge({}, cobBody(keyA, '7.25'));
    await waitFor(async () => (await a.pixDetailCharge({ txid: cob.txid })).status === 'CONCLUIDA', 'paid');
    const text = await pdfText(await a.pixGetReceipt({ txid: cob.txid }));
    assert.match(text, /Comprovante de Pix recebido/);
    assert.match(text, /R\$ 7,25/);
    assert.match(text, new RegExp(cob.txid));
    const missing = await refusal(a.pixGetReceipt({ e2eid: 'E12345678202611270000abcdef12345' }));
    assert.equal(missing.status, 404);
  });

  it("refuses a send's key lookup once a person's bucket is empty, and refills it on the account's clock", async () => {
    const person = await svc.newParty({ nome: 'Maria Pessoa', documento: PERSON_CPF });
    const p = sdkOf(person, 'person');
    assert.equal((await p.pixKeysBucket()).baldeB.capacidade, 100);
    // Keys the directory does not know (the sandbox fault): 20 tokens each.
    const fault = await person.http.request('PUT', '/sandbox/falhas/chave', {
      token: await person.token(),
      body: { resultado: 'nao_encontrada' },
    });
    assert.equal(fault.status, 200, fault.text);
    const send = () =>
      refusal(
        p.pixSend(
          { idEnvio: newIdEnvio() },
          { valor: '1.00', pagador: { chave: person.chaves[0] }, favorecido: { chave: 'maria@example.com' } },
        ),
      );
    for (let i = 0; i < 5; i++) assert.equal((await send()).nome, 'chave_nao_encontrada');
    assert.equal((await p.pixKeysBucket()).baldeB.fichasDisponiveis, 0);
    assert.equal((await p.pixKeysBucket()).baldeA.fichasDisponiveis, 100, 'the other bucket untouched');
    const empty = await send();
    assert.equal(empty.nome, 'limite_consultas_chave_atingido');
    const advanced = await person.http.request('POST', '/sandbox/clock/advance', {
      token: await person.token(),
      body: { segundos: 60 },
    });
    assert.equal(advanced.status, 200, advanced.text);
    assert.equal((await p.pixKeysBucket()).baldeB.fichasDisponiveis, 2);
  });

  it('refunds a split Pix: each beneficiary gives back its part as the split gave it, and none goes below zero', async () => {
    const receiverParty = await svc.newParty({ nome: 'Marketplace Ltda' });
    const [x, y] = await Promise.all([newBeneficiary(svc), newBeneficiary(svc)]);
    const token = await receiverParty.token();
    const call = async (method: string, route: string, body?: unknown, party: Party = receiverParty) => {
      const res = await party.http.request(method, route, {
        token: party === receiverParty ? token : await party.token(),
        body,
      });
      assert.ok(res.status < 300, `${method} ${route}: ${res.status} ${res.text}`);
      return res.body;
    };
    const config = await call(
      'POST',
      '/v2/gn/split/config',
      configBody('porcentagem', '60.00', [
        [x, '15.00'],
        [y, '25.00'],
      ]),
    );
    const paidSplitPix = async (valor: string) => {
      const cob = await call('POST', '/v2/cob', cobBody(receiverParty.chaves[0], valor));
      await call('PUT', `/v2/gn/split/cob/${cob.txid}/vinculo/${config.id}`);
      return (await call('POST', '/sandbox/pix/pay', { txid: cob.txid })).endToEndId as string;
    };
    const efi = sdkOf(receiverParty, 'marketplace');
    const saldos = async () =>
      Promise.all(
        [receiverParty, x.party, y.party].map(
          async (party) => (await call('GET', '/v2/gn/saldo/', undefined, party)).saldo,
        ),
      );
    const settled = (e2eid: string, id: string) =>
      waitFor(async () => {
        const refund = await call('GET', `/v2/pix/${e2eid}/devolucao/${id}`);
        return refund.status !== 'EM_PROCESSAMENTO' && refund;
      }, `refund ${id} settled`);

    // 100.01 divided 60/15/25 by largest remainder: 60.01, 15.00, 25.00.
    const first = await paidSplitPix('100.01');
    assert.deepEqual(await saldos(), ['60.01', '15.00', '25.00']);
    // The SDK names the parameter e2eId (the path says :e2eid): pixd takes it as the SDK sends it.
    const partial = await efi.pixSplitDevolution({ e2eId: first, id: 'parcial1' }, { valor: '10.00' });
    assert.equal(partial.valor, '10.00');
    assert.equal((await settled(first, 'parcial1')).status, 'DEVOLVIDO');
    assert.deepEqual(await saldos(), ['54.01', '13.50', '22.50'], '10.00 taken back as 6.00, 1.50, 2.50');
    await efi.pixSplitDevolution({ e2eId: first, id: 'resto1' }, { valor: '90.01' });
    assert.equal((await settled(first, 'resto1')).status, 'DEVOLVIDO');
    assert.deepEqual(await saldos(), ['0.00', '0.00', '0.00'], 'the whole division taken back, exactly');
    const over = await refusal(efi.pixSplitDevolution({ e2eId: first, id: 'acima1' }, { valor: '0.01' }));
    assert.ok(over.nome, 'refused by name');
    const sql = svc.service.ctx.db;
    for (const [party, saldo] of [receiverParty, x.party, y.party].map(
      (p, i) => [p, ['0.00', '0.00', '0.00'][i]] as const,
    ))
      await assertBalanceMatchesLines(sql, party.accountId, saldo);

    // A beneficiary who no longer holds its part (most of it blocked): the refund is not made, and nothing moves.
    const second = await paidSplitPix('50.00');
    await call('POST', '/sandbox/saldo/bloqueios', { tipo: 'judicial', valor: '7.00' }, x.party);
    assert.deepEqual(await saldos(), ['30.00', '0.50', '12.50']);
    await efi.pixSplitDevolution({ e2eId: second, id: 'bloqueado2' }, { valor: '50.00' });
    assert.equal((await settled(second, 'bloqueado2')).status, 'NAO_REALIZADO');
    assert.deepEqual(await saldos(), ['30.00', '0.50', '12.50']);
    await assertLedgerBalanced(sql);
  });
});
