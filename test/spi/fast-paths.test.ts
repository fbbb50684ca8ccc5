// suite: database-independent
/**
 * The two shortcuts of an inbound pacs.008's XML (docs/performance.md, "Session 13"): the plain-form reader
 * (src/spi/plain-xml.ts) builds fast-xml-parser's tree to the letter for every form a valid message can take,
 * and gives way to it for any other; the status report's template (src/spi/report-template.ts) writes the very
 * text the validating builder writes, and gives way to it for anything the template does not cover. Pure
 * functions, no server.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { XMLParser } from 'fast-xml-parser';
import {
  buildCreditTransfer,
  buildMessageReject,
  buildPaymentReturn,
  buildStatusReport,
  newMsgId,
  parseSpiMessage,
  SpiMessageInvalid,
  type CreditTransfer,
  type StatusReport,
} from '../../src/spi/messages.ts';
import { readPlainXml } from '../../src/spi/plain-xml.ts';
import { statusReportFromTemplate } from '../../src/spi/report-template.ts';
import { validateSpiMessage } from '../../src/spi/xsd.ts';

// messages.ts's options for fast-xml-parser: the reference the plain reader must equal.
const reference = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
});

const at = new Date('2026-11-27T15:04:05.678Z');
const e2e = 'E9999900920261127150400000AbCdEf';
const toKey: CreditTransfer = {
  kind: 'pacs.008',
  msgId: newMsgId('99999009'),
  createdAt: at,
  endToEndId: e2e,
  amountCents: 100,
  acceptedAt: at,
  debtor: { ispb: '99999009', nome: 'Pagador', cpf: '11144477735', conta: '1', tipoConta: 'CACC' },
  creditor: { ispb: '99999008', chave: 'loja@example.com' },
};
const full: CreditTransfer = {
  ...toKey,
  txid: 'cob00000000000000000000000001',
  idRec: 'RR9999900920261127abcdefghijk',
  amountCents: 123456,
  debtor: {
    ispb: '99999009',
    nome: 'Pagador Ltda',
    cnpj: '12345678000195',
    conta: '0012345',
    agencia: '0001',
    tipoConta: 'SVGS',
  },
  creditor: { ispb: '99999008', cpf: '12345678909', conta: '99', tipoConta: 'TRAN', chave: 'loja@example.com' },
  infoPagador: 'pedido 42',
};
const report: Omit<StatusReport, 'kind'> = {
  msgId: newMsgId('99999008'),
  createdAt: at,
  originalMsgId: toKey.msgId,
  originalMsgName: 'pacs.008.spi.1.13',
  originalId: e2e,
  status: 'ACSP',
  settledAt: at,
};
const rejected = buildStatusReport({ ...report, status: 'RJCT', reason: { code: 'AM09', info: 'excede' } });

/** Valid messages of every kind, and shapes of each (optional parts present and absent, a repeated element). */
const MESSAGES = [
  buildCreditTransfer(toKey),
  buildCreditTransfer(full),
  buildStatusReport(report),
  rejected,
  rejected.replace('<AddtlInf>excede</AddtlInf>', '<AddtlInf>excede</AddtlInf><AddtlInf>o valor</AddtlInf>'),
  buildPaymentReturn({
    msgId: newMsgId('99999008'),
    createdAt: at,
    rtrId: 'D9999900820261127150400000AbCdEf',
    originalEndToEndId: e2e,
    amountCents: 1,
    fromIspb: '99999008',
    toIspb: '99999009',
    reason: 'MD06',
    info: 'devolução',
  }),
  buildMessageReject({ ref: toKey.msgId, reason: 'IMSG', at, description: 'x' }),
];

/** The same documents written otherwise: every lexical freedom XML leaves a sender that the reader must handle. */
const FORMS: Record<string, (xml: string) => string> = {
  'as built': (xml) => xml,
  'without the declaration': (xml) => xml.replace(/^<\?xml[^>]*\?>/, ''),
  'indented, CRLF': (xml) => xml.replaceAll('><', '>\r\n    <') + '\r\n',
  'with a namespace prefix': (xml) => xml.replace(/<(\/?)(\w)/g, '<$1spi:$2').replace(' xmlns=', ' xmlns:spi='),
  'with a schema location, quotes and spaces around attributes': (xml) =>
    xml
      .replace(' xmlns=', ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"  xsi:schemaLocation = "a b" xmlns=')
      .replace('Ccy="BRL">', "Ccy = 'BRL' >")
      .replace(/<(\w+)>/g, '<$1 >'),
  'with spaces around values': (xml) =>
    xml.replace(/>([^<]+)</g, '> $1\t<').replace(/<(\w+)>([^<]+)<\/\1>/, '<$1>\n$2\n</$1>'),
};

describe('the plain-form reader', () => {
  for (const [form, rewrite] of Object.entries(FORMS))
    it(`equals fast-xml-parser's tree: ${form}`, () => {
      for (const built of MESSAGES) {
        const xml = rewrite(built);
        let valid = true;
        try {
          validateSpiMessage(xml);
        } catch (error) {
          assert.ok(error instanceof SpiMessageInvalid);
          valid = false;
        }
        // Only what validates reaches the reader; the rewrites that validate must read as the original does.
        const plain = readPlainXml(xml);
        assert.ok(plain, form);
        assert.deepEqual(plain.Document, reference.parse(xml).Document, `${form}:\n${xml}`);
        if (valid) assert.deepEqual(parseSpiMessage(xml), parseSpiMessage(built), `${form}:\n${xml}`);
      }
    });

  it('gives way to fast-xml-parser for references, comments, CDATA, DOCTYPE and processing instructions', () => {
    const xml = buildCreditTransfer(toKey);
    const forms = [
      xml.replace('>Pagador<', '>Pagador &amp; filhos<'),
      xml.replace('>Pagador<', '>Pag&#97;dor<'),
      xml.replace('<GrpHdr>', '<GrpHdr><!-- comentário -->'),
      xml.replace('>Pagador<', '><![CDATA[Pagador]]><'),
      xml.replace('?>', '?><!DOCTYPE Document>'),
      xml.replace('<GrpHdr>', '<GrpHdr><?pi x?>'),
    ];
    for (const form of forms) assert.equal(readPlainXml(form), undefined, form);
    // And read as before: the reference (an entity is decoded, a comment dropped).
    assert.equal((parseSpiMessage(forms[0]) as CreditTransfer).debtor.nome, 'Pagador & filhos');
    assert.equal((parseSpiMessage(forms[2]) as CreditTransfer).msgId, toKey.msgId);
  });
});

describe("the status report's template", () => {
  const unused = () => assert.fail('the template of this shape was made already');

  it('writes a valid report that reads back, for each shape it covers', () => {
    for (const shape of [
      report,
      { ...report, settledAt: undefined },
      { ...report, status: 'ACCC' as const },
      { ...report, originalMsgName: 'pacs.004.spi.1.5' as const, originalId: 'D9999900820261127150400000AbCdEf' },
    ])
      for (let n = 0; n < 20; n++) {
        const m = {
          ...shape,
          msgId: newMsgId('99999008'),
          originalMsgId: newMsgId('99999009'),
          createdAt: new Date(at.getTime() + n * 86_399_999),
          ...(shape.settledAt && { settledAt: new Date(at.getTime() + n * 1_001) }),
        };
        const xml = buildStatusReport(m);
        assert.equal(statusReportFromTemplate(m, unused), xml, 'written from the template');
        assert.equal(validateSpiMessage(xml), 'pacs.002.spi.1.14');
        const { settledAt, ...rest } = m;
        assert.deepEqual(parseSpiMessage(xml), { kind: 'pacs.002', ...rest, ...(settledAt && { settledAt }) });
      }
  });

  it('leaves a value off its pattern to the validating builder, which refuses it', () => {
    for (const bad of [
      { originalMsgId: 'M123' },
      { originalId: 'E123' },
      { msgId: `${newMsgId('99999008').slice(0, 31)}-` },
      { createdAt: new Date('0000-01-01T00:00:00Z') },
      { settledAt: new Date(Number.NaN) },
    ]) {
      assert.equal(statusReportFromTemplate({ ...report, ...bad }, unused), undefined);
      assert.throws(
        () => buildStatusReport({ ...report, ...bad }),
        (error) => error instanceof Error,
        JSON.stringify(bad),
      );
    }
    // A reason is always built (its text may need escaping) and validated.
    assert.equal(statusReportFromTemplate({ ...report, status: 'RJCT', reason: { code: 'AM09' } }, unused), undefined);
  });
});
