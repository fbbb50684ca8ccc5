// suite: database-independent
/**
 * The SPI messages (src/spi): each one built, validated against its XSD and read back to the same value; what
 * does not validate is refused with admi.002's reason. Pure functions, no server.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildCreditTransfer,
  buildMessageReject,
  buildPaymentReturn,
  buildStatusReport,
  newMsgId,
  parseSpiMessage,
  SpiMessageInvalid,
  type CreditTransfer,
} from '../../src/spi/messages.ts';

const at = new Date('2026-11-27T15:04:05.678Z');
const transfer: CreditTransfer = {
  kind: 'pacs.008',
  msgId: newMsgId('99999009'),
  createdAt: at,
  endToEndId: 'E9999900920261127150400000AbCdEf',
  txid: 'cob00000000000000000000000001',
  idRec: 'RR9999900920261127abcdefghijk',
  initiation: 'QRDN',
  amountCents: 123456,
  acceptedAt: at,
  debtor: {
    ispb: '99999009',
    nome: 'Pagador <&> Ltda',
    cnpj: '12345678000195',
    conta: '0012345',
    agencia: '0001',
    tipoConta: 'CACC',
  },
  creditor: { ispb: '99999008', cpf: '12345678909', conta: '99', tipoConta: 'TRAN', chave: 'loja@example.com' },
  infoPagador: 'pedido 42',
};

describe('SPI messages', () => {
  it('pacs.008 builds, validates and reads back', () => {
    const xml = buildCreditTransfer(transfer);
    assert.match(xml, /<IntrBkSttlmAmt Ccy="BRL">1234.56<\/IntrBkSttlmAmt>/);
    assert.match(xml, /<CreDtTm>2026-11-27T15:04:05.678Z<\/CreDtTm>/);
    assert.deepEqual(parseSpiMessage(xml), transfer);
  });

  it('pacs.002, pacs.004 and admi.002 round-trip', () => {
    const report = {
      kind: 'pacs.002',
      msgId: newMsgId('99999008'),
      createdAt: at,
      originalMsgId: transfer.msgId,
      originalMsgName: 'pacs.008.spi.1.13',
      originalId: transfer.endToEndId,
      status: 'RJCT',
      reason: { code: 'AC03', info: 'Conta inexistente' },
    } as const;
    assert.deepEqual(parseSpiMessage(buildStatusReport(report)), report);
    const accepted = { ...report, status: 'ACSP', reason: undefined, settledAt: at } as const;
    const { reason: _, ...acceptedRead } = accepted;
    assert.deepEqual(parseSpiMessage(buildStatusReport(accepted)), acceptedRead);
    const back = {
      kind: 'pacs.004',
      msgId: newMsgId('99999008'),
      createdAt: at,
      rtrId: 'D9999900820261127150400000AbCdEf',
      originalEndToEndId: transfer.endToEndId,
      amountCents: 1,
      fromIspb: '99999008',
      toIspb: '99999009',
      reason: 'MD06',
      info: 'devolução pedida pelo recebedor',
    } as const;
    assert.deepEqual(parseSpiMessage(buildPaymentReturn(back)), back);
    const reject = { kind: 'admi.002', ref: transfer.msgId, reason: 'IMSG', at, description: 'x' } as const;
    assert.deepEqual(parseSpiMessage(buildMessageReject(reject)), reject);
  });

  it('refuses what does not validate, naming why', () => {
    const xml = buildCreditTransfer(transfer);
    const refusal = (bad: string) => {
      try {
        parseSpiMessage(bad);
      } catch (error) {
        assert.ok(error instanceof SpiMessageInvalid, String(error));
        return error;
      }
      assert.fail('accepted');
    };
    assert.equal(refusal('<Document').reason, 'PARS');
    assert.equal(refusal('<Document xmlns="urn:other"/>').reason, 'MSGT');
    const badAmount = refusal(xml.replace('1234.56', '1234.5'));
    assert.equal(badAmount.reason, 'IMSG');
    assert.equal(badAmount.msgId, transfer.msgId);
    assert.equal(refusal(xml.replace('15:04:05.678Z</CreDtTm>', '12:04:05.678-03:00</CreDtTm>')).reason, 'IMSG');
    assert.equal(refusal(xml.replace('<MmbId>99999008', '<MmbId>9999900')).reason, 'IMSG');
    assert.throws(() => buildCreditTransfer({ ...transfer, endToEndId: 'E123' }), SpiMessageInvalid);
  });
});
