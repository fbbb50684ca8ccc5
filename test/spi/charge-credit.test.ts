/**
 * A pacs.008 to a charge (its key and txid) on the SPI boundary's charge settlement path (src/spi/credit.ts,
 * docs/spi.md "Throughput"): the sandbox pay endpoint's payment of a charge (by txid, by a dynamic QR code) is a
 * pacs.008 claimed in spi_inbound with its ACSP answer by the statement that pays the charge; a copy of the message
 * (same MsgId, or the same end-to-end id under another) never credits twice, delivered one after the other or at
 * once; concurrent payments of one charge pay it once; and a charge (or key) changed between the read and the
 * write writes nothing, its message then paid by the locked path exactly once.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { newEndToEndId, SANDBOX_PAYER_ISPB } from '../../src/platform/institution.ts';
import { newMsgId, parseSpiMessage } from '../../src/spi/messages.ts';
import { receiveSpiMessage } from '../../src/spi/inbound.ts';
import { chargeCreditWriterFor } from '../../src/spi/credit.ts';
import { writeInboundChargeCredits } from '../../src/spi/store.ts';
import { payerCreditTransfer, type PayerOrder } from '../../src/sandbox/spi-institution.ts';
import { readChargeForSettlement, readKeysForSettlement } from '../../src/pix/payments/store.ts';
import { chargeSettlement } from '../../src/pix/payments/engine.ts';
import { newChargeVersion } from '../../src/pix/charges/store.ts';

describe('inbound pacs.008 to a charge, on the group-committed charge path', () => {
  let svc: TestService;
  let party: Party;
  let token: string;
  const db = () => svc.service.ctx.db;
  const call = (method: string, path: string, body?: unknown) => party.http.request(method, path, { token, body });
  const saldoCents = async () => Math.round(Number((await call('GET', '/v2/gn/saldo/')).body.saldo as string) * 100);
  const createCob = async (valor: string) => {
    const res = await call('POST', '/v2/cob', cobBody(party.chaves[0], valor));
    assert.equal(res.status, 201, res.text);
    return res.body as { txid: string; pixCopiaECola: string };
  };
  const orderFor = (txid: string, amountCents: number, endToEndId?: string): PayerOrder => ({
    creditor: { chave: party.chaves[0] },
    txid,
    initiation: 'QRDN',
    amountCents,
    ...(endToEndId && { endToEndId }),
  });
  const messageFor = (order: PayerOrder) => payerCreditTransfer(order, new Date());
  const statusOf = (xml: string | undefined) => {
    const answer = parseSpiMessage(xml ?? '');
    assert.equal(answer.kind, 'pacs.002');
    return answer.kind === 'pacs.002' ? answer : undefined!;
  };
  const receivedOf = async (txid: string) =>
    (
      await db().query<{ end_to_end_id: string; origin: string }>(
        'select r.end_to_end_id, r.origin from received_pix r join charges c on c.id = r.charge_id where c.txid = $1',
        [txid],
      )
    ).rows;
  const claimOf = async (endToEndId: string) =>
    (
      await db().query<{ msg_id: string; answer: string | null; account_id: number }>(
        `select msg_id, answer, account_id from spi_inbound where kind = 'pacs.008' and ref_id = $1`,
        [endToEndId],
      )
    ).rows;

  before(async () => {
    svc = await startTestService();
    party = await svc.newParty();
    token = await party.token();
    // A receiver's first payment creates its ledger account, through the locked path; later ones take the path.
    const first = await createCob('11.00');
    assert.equal((await call('POST', '/sandbox/pix/pay', { txid: first.txid })).status, 201);
  });
  afterEach(async () => {
    await assertLedgerBalanced(db());
    await assertBalanceMatchesLines(db(), party.accountId, (await call('GET', '/v2/gn/saldo/')).body.saldo);
  });
  after(() => svc?.close());

  it('pays a charge by txid and by its dynamic QR code with a pacs.008 claimed in the paying statement', async () => {
    const writer = chargeCreditWriterFor(db());
    const before = writer.written.items;
    const saldo = await saldoCents();
    const byTxid = await createCob('12.34');
    const paid = await call('POST', '/sandbox/pix/pay', { txid: byTxid.txid });
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.valor, '12.34', 'the amount the charge asks, none given');
    assert.ok((paid.body.endToEndId as string).startsWith(`E${SANDBOX_PAYER_ISPB}`), 'the payer’s institution’s id');
    const [claim] = await claimOf(paid.body.endToEndId);
    assert.equal(statusOf(claim.answer ?? undefined).status, 'ACSP');
    assert.equal(Number(claim.account_id), party.accountId);
    assert.deepEqual(await receivedOf(byTxid.txid), [{ end_to_end_id: paid.body.endToEndId, origin: 'spi' }]);

    const byCode = await createCob('12.35');
    const scanned = await call('POST', '/sandbox/pix/pay', { pixCopiaECola: byCode.pixCopiaECola });
    assert.equal(scanned.status, 201, scanned.text);
    assert.equal(scanned.body.txid, byCode.txid);
    assert.equal((await claimOf(scanned.body.endToEndId)).length, 1);
    assert.equal((await call('GET', `/v2/cob/${byCode.txid}`)).body.status, 'CONCLUIDA');
    assert.equal(writer.written.items - before, 2, 'both on the group-committed charge path');
    assert.equal(await saldoCents(), saldo + 1234 + 1235);

    // Refused in the engine's words, nothing written: the amount differs from the charge's.
    const other = await createCob('12.36');
    const refused = await call('POST', '/sandbox/pix/pay', { txid: other.txid, valor: '1.00' });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.violacoes[0].razao, 'valor_divergente');
    assert.equal((await call('GET', `/v2/cob/${other.txid}`)).body.status, 'ATIVA');
  });

  it('a copy of the message — the same MsgId, or the same end-to-end id under another — never credits twice', async () => {
    const saldo = await saldoCents();
    const { txid } = await createCob('13.00');
    const endToEndId = newEndToEndId(new Date(), SANDBOX_PAYER_ISPB);
    const xml = messageFor(orderFor(txid, 1300, endToEndId));
    const first = await receiveSpiMessage(svc.service.ctx, xml);
    assert.equal(first.status, 200);
    assert.equal(statusOf(first.xml).status, 'ACSP');
    assert.ok(first.credit && 'received' in first.credit);
    const again = await receiveSpiMessage(svc.service.ctx, xml);
    assert.equal(again.xml, first.xml, 'the first answer, as recorded');
    assert.equal(again.credit, undefined, 'no decision: a copy');
    const otherMsgId = xml.replace(/<MsgId>[^<]+<\/MsgId>/, `<MsgId>${newMsgId(SANDBOX_PAYER_ISPB)}</MsgId>`);
    assert.notEqual(otherMsgId, xml);
    const copy = await receiveSpiMessage(svc.service.ctx, otherMsgId);
    assert.equal(copy.xml, first.xml);

    // Copies delivered at once: one decision, every answer the same.
    const { txid: txid2 } = await createCob('13.01');
    const xml2 = messageFor(orderFor(txid2, 1301));
    const answers = await Promise.all(Array.from({ length: 6 }, () => receiveSpiMessage(svc.service.ctx, xml2)));
    assert.equal(new Set(answers.map((a) => a.xml)).size, 1, answers.map((a) => a.xml).join('\n'));
    assert.equal(statusOf(answers[0].xml).status, 'ACSP');
    assert.equal(answers.filter((a) => a.credit && 'received' in a.credit).length, 1, 'decided once');
    assert.equal((await receivedOf(txid)).length, 1);
    assert.equal((await receivedOf(txid2)).length, 1);
    assert.equal(await saldoCents(), saldo + 1300 + 1301);
  });

  it('concurrent payments of one charge (each its own message) pay it once; the others are refused AM05', async () => {
    const saldo = await saldoCents();
    for (let round = 0; round < 3; round++) {
      const { txid } = await createCob('14.00');
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => receiveSpiMessage(svc.service.ctx, messageFor(orderFor(txid, 1400)))),
      );
      const statuses = answers.map((a) => statusOf(a.xml));
      assert.equal(statuses.filter((s) => s.status === 'ACSP').length, 1, statuses.map((s) => s.status).join());
      for (const s of statuses.filter((r) => r.status !== 'ACSP')) assert.equal(s.reason?.code, 'AM05');
      assert.equal((await receivedOf(txid)).length, 1);
    }
    assert.equal(await saldoCents(), saldo + 3 * 1400);
  });

  it('a charge or key changed between the read and the write: nothing written, then paid once on the locked path', async () => {
    const saldo = await saldoCents();
    const [key] = await readKeysForSettlement(db(), [party.chaves[0]]);
    const decide = async (txid: string, endToEndId: string) => {
      const charge = (await readChargeForSettlement(db(), { kind: 'charge', accountId: party.accountId, txid }))!;
      const incoming = {
        target: { kind: 'charge', accountId: party.accountId, txid } as const,
        amountCents: 1500,
        payer: { nome: 'Pagador', cpf: '11144477735' },
        origin: 'spi' as const,
        endToEndId,
      };
      return { charge, settlement: chargeSettlement(charge, incoming, new Date())! };
    };
    const { txid } = await createCob('15.00');
    const endToEndId = newEndToEndId(new Date(), SANDBOX_PAYER_ISPB);
    const xml = messageFor(orderFor(txid, 1500, endToEndId));
    const message = parseSpiMessage(xml);
    assert.equal(message.kind, 'pacs.008');
    const { charge, settlement } = await decide(txid, endToEndId);
    // Revised (as a split link or a revision gives the row a new version) after the read.
    await newChargeVersion(db(), charge.id);
    const credit = {
      ...settlement,
      key: { chave: key!.chave, version: key!.version },
      msgId: message.kind === 'pacs.008' ? message.msgId : '',
      answer: 'ACSP',
    };
    assert.deepEqual(await writeInboundChargeCredits(db(), [credit]), [undefined], 'the changed charge is not paid');
    assert.deepEqual(await claimOf(endToEndId), [], 'nor its message claimed');
    assert.equal((await receivedOf(txid)).length, 0);
    // The key changed instead (its version read is not the current one): nothing either.
    const fresh = await decide(txid, endToEndId);
    const staleKey = { ...credit, ...fresh.settlement, key: { chave: key!.chave, version: `${key!.version}x` } };
    assert.deepEqual(await writeInboundChargeCredits(db(), [staleKey]), [undefined]);
    assert.deepEqual(await claimOf(endToEndId), []);

    // Delivered, the message is decided again and paid once; its copy gets the same answer.
    const answer = await receiveSpiMessage(svc.service.ctx, xml);
    assert.equal(statusOf(answer.xml).status, 'ACSP');
    assert.equal((await receiveSpiMessage(svc.service.ctx, xml)).xml, answer.xml);
    assert.equal((await receivedOf(txid)).length, 1);
    assert.equal((await claimOf(endToEndId)).length, 1);
    assert.equal(await saldoCents(), saldo + 1500);
  });
});
