// suite: database-independent
/**
 * The shortcuts of the SPI's XML (docs/performance.md, "Session 13" and "Session 15"): the plain-form reader
 * (src/spi/plain-xml.ts) builds fast-xml-parser's tree to the letter for every form a valid message can take,
 * and gives way to it for any other; the status report's template (src/spi/report-template.ts) writes the very
 * text the validating builder writes, and gives way to it for anything the template does not cover; the message
 * writer (src/spi/xml-writer.ts) writes what fast-xml-parser's XMLBuilder writes, byte for byte. Pure
 * functions, no server.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fc from 'fast-check';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { XmlDocument, XsdValidator } from 'libxml2-wasm';
import {
  buildCreditTransfer,
  buildMessageReject,
  buildPaymentReturn,
  buildStatusReport,
  newMsgId,
  parseSpiMessage,
  SPI_XML_PARSER_OPTIONS,
  SpiMessageInvalid,
  type CreditTransfer,
  type StatusReport,
} from '../../src/spi/messages.ts';
import { readPlainXml } from '../../src/spi/plain-xml.ts';
import { statusReportFromTemplate } from '../../src/spi/report-template.ts';
import { writeXml, type XmlBody } from '../../src/spi/xml-writer.ts';
import { validateSpiMessage } from '../../src/spi/xsd.ts';
import { compilePlainValidator, type PlainValidator } from '../../src/spi/xsd-plain.ts';

const compiled = new Map<string, PlainValidator>();
const compiledFor = (name: string) => {
  if (!compiled.has(name))
    compiled.set(
      name,
      compilePlainValidator(fs.readFileSync(new URL(`../../src/spi/xsd/${name}.xsd`, import.meta.url), 'utf8')),
    );
  return compiled.get(name)!;
};

// messages.ts's fast-xml-parser: the reference the plain reader must equal.
const reference = new XMLParser(SPI_XML_PARSER_OPTIONS);

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

/** libxml2 alone, as xsd.ts asks it: the reference the plain-form validator must never be laxer than. */
function libxml2Accepts(xml: string, name: string): boolean {
  const schema = XmlDocument.fromBuffer(fs.readFileSync(new URL(`../../src/spi/xsd/${name}.xsd`, import.meta.url)));
  const validator = XsdValidator.fromDoc(schema);
  schema.dispose();
  let doc: XmlDocument | undefined;
  try {
    doc = XmlDocument.fromString(xml);
    validator.validate(doc);
    return true;
  } catch {
    return false;
  } finally {
    doc?.dispose();
    validator.dispose();
  }
}

const NAMES = [
  'pacs.008.spi.1.13',
  'pacs.008.spi.1.13',
  'pacs.002.spi.1.14',
  'pacs.002.spi.1.14',
  'pacs.002.spi.1.14',
  'pacs.004.spi.1.5',
  'admi.002.spi.1.3',
];

/** A seeded sequence (mulberry32): the same mutations on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values at the edges of their types: some valid, most not. */
const VALUE_EDGES: [RegExp, string[]][] = [
  [
    /\d{4}-\d{2}-\d{2}T[\d:.]+Z/,
    [
      '2024-02-29T10:00:00Z',
      '2026-02-29T10:00:00Z',
      '2026-04-31T00:00:00.000Z',
      '2026-11-27T24:00:00Z',
      '0000-01-01T00:00:00Z',
      '2026-11-27T10:00:60Z',
      '2026-11-27T10:00:00.1234Z',
      '2026-11-27T10:00:00+00:00',
      ' 2026-11-27T10:00:00Z',
      '2026-1-27T10:00:00Z',
      '2026-13-01T10:00:00Z',
    ],
  ],
  [
    />\d+\.\d{2}</,
    [
      '>0.00<',
      '>0.01<',
      '>00.01<',
      '>1.0<',
      '>1<',
      '>1.000<',
      '>9999999999999999.99<',
      '>99999999999999999.99<',
      '>-1.00<',
      '> 1.00<',
      '>1,00<',
    ],
  ],
  [
    />Pagador[^<]*</,
    [
      `>${'x'.repeat(140)}<`,
      `>${'x'.repeat(141)}<`,
      '><',
      '> <',
      '>a]]>b<',
      '>a\rb<',
      '>a\u0001b<',
      '>ção\u2028<',
      '>😀<',
    ],
  ],
  [/>loja@example.com</, [`>${'k'.repeat(77)}<`, `>${'k'.repeat(78)}<`, '><']],
  [/ Ccy="BRL"/, [' Ccy="USD"', " Ccy='BRL'", ' Ccy="BRL" ', '', ' Ccy="BRL" Ccy="BRL"', ' ccy="BRL"']],
  [/>CACC</, ['>TRAN<', '>XXXX<', '>CACC <']],
  [/<MsgId>M\d{8}/, ['<MsgId>M1234567', '<MsgId>N12345678', '<MsgId> M12345678']],
];

describe('the plain-form validator', () => {
  it("accepts the messages pixd and gateways write, read to fast-xml-parser's tree", () => {
    for (const [n, xml] of MESSAGES.entries())
      assert.deepEqual(compiledFor(NAMES[n]).read(xml)?.Document, reference.parse(xml).Document, xml);
  });

  it('accepts nothing libxml2 refuses, and reads what it accepts as fast-xml-parser: mutations of every message', () => {
    const next = random(27);
    let accepted = 0;
    let checked = 0;
    const check = (mutant: string, name: string) => {
      checked++;
      const tree = compiledFor(name).read(mutant);
      if (!tree) return;
      accepted++;
      assert.ok(libxml2Accepts(mutant, name), `accepted, but libxml2 refuses:\n${mutant}`);
      assert.deepEqual(tree.Document, reference.parse(mutant).Document, mutant);
    };
    const tricky = [
      ' ',
      '\t',
      '\n',
      '\r',
      '&',
      '<',
      '>',
      '/',
      '"',
      "'",
      '=',
      'x',
      'Z',
      '0',
      '9',
      '.',
      '-',
      ':',
      '\u2028',
      '\uFFFE',
    ];
    for (const [n, xml] of MESSAGES.entries()) {
      const name = NAMES[n];
      for (let at = 0; at < xml.length; at++) {
        check(xml.slice(0, at) + xml.slice(at + 1), name);
        check(xml.slice(0, at) + tricky[Math.floor(next() * tricky.length)] + xml.slice(at + 1), name);
        check(xml.slice(0, at) + tricky[Math.floor(next() * tricky.length)] + xml.slice(at), name);
      }
      // Whole elements left out, repeated, or swapped with the next.
      const elements = [...xml.matchAll(/<(\w+)>[^<]*<\/\1>/g)];
      for (const [n2, element] of elements.entries()) {
        const [text] = element;
        check(xml.replace(text, ''), name);
        check(xml.replace(text, text + text), name);
        const after = elements[n2 + 1]?.[0];
        if (after) check(xml.replace(text + after, after + text), name);
      }
      for (const [pattern, values] of VALUE_EDGES)
        if (pattern.test(xml)) for (const value of values) check(xml.replace(pattern, value), name);
    }
    // The mutants it does accept (a leap day, the longest name…) are valid ones, and there are some.
    assert.ok(accepted > 10 && checked > 10_000, `${accepted} accepted of ${checked}`);
  });

  it('leaves to libxml2, and to its error, every message it does not accept', () => {
    const xml = buildCreditTransfer(toKey);
    const refusal = (bad: string) => assert.throws(() => validateSpiMessage(bad), SpiMessageInvalid);
    refusal(xml.replace('2026-11-27T15:04:05.678Z', '2026-02-29T15:04:05.678Z'));
    refusal(xml.replace('>1.00<', '>0.00<'));
    refusal(xml.replace('<ChrgBr>SLEV</ChrgBr>', ''));
    // Valid, but not plain: libxml2 accepts them.
    assert.equal(validateSpiMessage(xml.replace('<GrpHdr>', '<GrpHdr><!-- x -->')), 'pacs.008.spi.1.13');
    assert.equal(validateSpiMessage(FORMS['with a namespace prefix'](xml)), 'pacs.008.spi.1.13');
  });
});

describe('the message writer', () => {
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', textNodeName: '#text' });
  // Text with every character the builder escapes, and some it does not.
  const text = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '&', '<', '>', '"', "'", 'ç', '\u0000', ';') });
  const leaf = fc.oneof(text, fc.integer(), fc.constant(undefined));
  const name = fc.constantFrom('A', 'Bb', 'CdtTrfTxInf', 'Id');
  // What messages.ts writes: elements holding text, or elements with an attribute and text beside them.
  const { value } = fc.letrec<{ value: unknown; element: XmlBody }>((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, leaf, tie('element')),
    element: fc
      .tuple(fc.dictionary(name, tie('value'), { maxKeys: 3 }), fc.option(text), fc.option(text))
      .map(([children, attribute, inner]) => ({
        ...(attribute !== null && { '@Ccy': attribute }),
        ...children,
        ...(inner !== null && { '#text': inner }),
      })),
  }));
  const document = fc.dictionary(name, value, { minKeys: 1, maxKeys: 2 }) as fc.Arbitrary<XmlBody>;

  it("writes XMLBuilder's text for any body: elements, attributes, text, undefined, escapes", () => {
    fc.assert(
      fc.property(document, (body) => {
        assert.equal(writeXml(body), builder.build(body));
      }),
      { numRuns: 2000 },
    );
  });
});
