/**
 * The four SPI messages pixd speaks (docs/spi.md), as typed values and as the XML of the catalog's schemas
 * (./xsd): `build*` writes a message and validates it before it leaves; `parseSpiMessage` validates what
 * arrives and reads it. Amounts are integer cents inside and the catalog's two-decimal form in the XML;
 * timestamps are written in UTC.
 */
import { XMLParser } from 'fast-xml-parser';
import { randomAlphanumeric } from '../platform/ids.ts';
import { formatAmount, parseAmount } from '../platform/money.ts';
import { readPlainXml } from './plain-xml.ts';
import { writeXml, type XmlBody } from './xml-writer.ts';
import { statusReportFromTemplate } from './report-template.ts';
import { SPI_SCHEMAS, SpiMessageInvalid, validateAndRead, validateSpiMessage } from './xsd.ts';

export { SpiMessageInvalid } from './xsd.ts';

export type AccountType = 'CACC' | 'SVGS' | 'SLRY' | 'TRAN';
export type TransactionStatus = 'ACSP' | 'ACCC' | 'RJCT';
/**
 * The catalog's forms of initiation: bank data, key, dynamic QR code, static QR code, payment initiator, and
 * automatic Pix (an attempt of a recurring charge, sent by the payer's institution on its own).
 */
export type Initiation = 'MANU' | 'DICT' | 'QRDN' | 'QRES' | 'INIC' | 'AUTO';
/** pacs.004's reasons: MD06 a refund the receiver asked, FR01 a MED return, BE08 an institution's error, SL02 cash. */
export type ReturnReason = 'MD06' | 'FR01' | 'BE08' | 'SL02';

export interface SpiParty {
  ispb: string;
  nome?: string;
  cpf?: string;
  cnpj?: string;
  conta: string;
  agencia?: string;
  tipoConta: AccountType;
}

/** pacs.008: one Pix credit transfer. */
export interface CreditTransfer {
  kind: 'pacs.008';
  msgId: string;
  createdAt: Date;
  endToEndId: string;
  /** The charge's txid (a dynamic or static QR code with one). */
  txid?: string;
  /** Automatic Pix: the recurrence the payment belongs to. */
  idRec?: string;
  /** How the payer initiated it (`LclInstrm`): QRES, a static QR code, is what a key's settings may refuse. */
  initiation?: Initiation;
  amountCents: number;
  acceptedAt: Date;
  debtor: SpiParty & { nome: string };
  /** Without `ispb`/`conta`: a pacs.008 to a key that the gateway completes from the DICT (xsd/README.md). */
  creditor: Partial<SpiParty> & { chave?: string };
  infoPagador?: string;
}

/** pacs.002: the answer to a pacs.008 or a pacs.004. */
export interface StatusReport {
  kind: 'pacs.002';
  msgId: string;
  createdAt: Date;
  originalMsgId: string;
  originalMsgName: 'pacs.008.spi.1.13' | 'pacs.004.spi.1.5';
  /** The end-to-end id of the pacs.008, or the RtrId of the pacs.004, answered. */
  originalId: string;
  status: TransactionStatus;
  reason?: { code: string; info?: string };
  settledAt?: Date;
}

/** pacs.004: a return of (part of) a received Pix. */
export interface PaymentReturn {
  kind: 'pacs.004';
  msgId: string;
  createdAt: Date;
  rtrId: string;
  originalEndToEndId: string;
  amountCents: number;
  /** The returning institution (the original receiver's), and the one returned to. */
  fromIspb: string;
  toIspb: string;
  reason: ReturnReason;
  info?: string;
}

/** admi.002: a message refused because it could not be read or did not validate. */
export interface MessageReject {
  kind: 'admi.002';
  /** The refused message's MsgId, or "NONREF" when it could not be read. */
  ref: string;
  reason: string;
  at: Date;
  description?: string;
}

export type SpiMessage = CreditTransfer | StatusReport | PaymentReturn | MessageReject;

/** `M` + the sender's ISPB + 23 alphanumerics: the catalog's MsgId. */
export const newMsgId = (ispb: string) => `M${ispb}${randomAlphanumeric(23)}`;

const utc = (at: Date) => at.toISOString();
const brl = (amountCents: number) => ({ '#text': formatAmount(amountCents), '@Ccy': 'BRL' });
const agent = (ispb: string) => ({ FinInstnId: { ClrSysMmbId: { MmbId: ispb } } });
const document = (name: keyof typeof SPI_SCHEMAS, body: XmlBody) => ({
  Document: { '@xmlns': SPI_SCHEMAS[name], ...body },
});

/**
 * Where a built message is checked against its XSD: `'here'`, before it leaves the builder (what pixd sends to
 * the SPI: a message that would not validate is a bug here, not the peer's), or `'on-receipt'`, by the node
 * that receives it, whose inbound path validates every message it parses (the sandbox's payer, whose messages go
 * to a node's inbound path and nowhere else: checking the same bytes twice cost ~40 µs of a sandbox payment's
 * ~490 µs of CPU; docs/performance.md, session 15).
 */
export type BuildCheck = 'here' | 'on-receipt';

function write(name: keyof typeof SPI_SCHEMAS, body: XmlBody, check: BuildCheck = 'here'): string {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>${writeXml(document(name, body))}`;
  if (check === 'here') validateSpiMessage(xml);
  return xml;
}

function party(p: Partial<SpiParty>) {
  const id = p.cnpj ? { OrgId: { Othr: { Id: p.cnpj } } } : { PrvtId: { Othr: { Id: p.cpf } } };
  return { ...(p.nome && { Nm: p.nome }), Id: id };
}

function account(p: Partial<SpiParty> & { chave?: string }) {
  return {
    ...(p.conta && { Id: { Othr: { Id: p.conta, ...(p.agencia && { Issr: p.agencia }) } } }),
    ...(p.tipoConta && { Tp: { Cd: p.tipoConta } }),
    ...(p.chave && { Prxy: { Id: p.chave } }),
  };
}

export function buildCreditTransfer(m: Omit<CreditTransfer, 'kind'>, check: BuildCheck = 'here'): string {
  return write(
    'pacs.008.spi.1.13',
    {
      FIToFICstmrCdtTrf: {
        GrpHdr: {
          MsgId: m.msgId,
          CreDtTm: utc(m.createdAt),
          NbOfTxs: '1',
          SttlmInf: { SttlmMtd: 'CLRG' },
          PmtTpInf: { InstrPrty: 'HIGH', SvcLvl: { Prtry: 'PAGPRI' } },
        },
        CdtTrfTxInf: {
          PmtId: { EndToEndId: m.endToEndId, ...(m.txid && { TxId: m.txid }) },
          ...(m.initiation && { PmtTpInf: { LclInstrm: { Prtry: m.initiation } } }),
          IntrBkSttlmAmt: brl(m.amountCents),
          AccptncDtTm: utc(m.acceptedAt),
          ChrgBr: 'SLEV',
          ...(m.idRec && { MndtRltdInf: { MndtId: m.idRec } }),
          Dbtr: party(m.debtor),
          DbtrAcct: account(m.debtor),
          DbtrAgt: agent(m.debtor.ispb),
          ...(m.creditor.ispb && { CdtrAgt: agent(m.creditor.ispb) }),
          ...((m.creditor.cpf || m.creditor.cnpj) && { Cdtr: party(m.creditor) }),
          CdtrAcct: account(m.creditor),
          ...(m.infoPagador && { RmtInf: { Ustrd: m.infoPagador } }),
        },
      },
    },
    check,
  );
}

export function buildStatusReport(m: Omit<StatusReport, 'kind'>): string {
  return statusReportFromTemplate(m, writeStatusReport) ?? writeStatusReport(m);
}

function writeStatusReport(m: Omit<StatusReport, 'kind'>): string {
  return write('pacs.002.spi.1.14', {
    FIToFIPmtStsRpt: {
      GrpHdr: { MsgId: m.msgId, CreDtTm: utc(m.createdAt) },
      OrgnlGrpInfAndSts: { OrgnlMsgId: m.originalMsgId, OrgnlMsgNmId: m.originalMsgName },
      TxInfAndSts: {
        OrgnlEndToEndId: m.originalId,
        TxSts: m.status,
        ...(m.reason && {
          StsRsnInf: { Rsn: { Cd: m.reason.code }, ...(m.reason.info && { AddtlInf: m.reason.info.slice(0, 105) }) },
        }),
        ...(m.settledAt && { FctvIntrBkSttlmDt: { DtTm: utc(m.settledAt) } }),
      },
    },
  });
}

export function buildPaymentReturn(m: Omit<PaymentReturn, 'kind'>): string {
  return write('pacs.004.spi.1.5', {
    PmtRtr: {
      GrpHdr: { MsgId: m.msgId, CreDtTm: utc(m.createdAt), NbOfTxs: '1', SttlmInf: { SttlmMtd: 'CLRG' } },
      TxInf: {
        RtrId: m.rtrId,
        OrgnlEndToEndId: m.originalEndToEndId,
        RtrdIntrBkSttlmAmt: brl(m.amountCents),
        SttlmPrty: 'HIGH',
        ChrgBr: 'SLEV',
        InstgAgt: agent(m.fromIspb),
        InstdAgt: agent(m.toIspb),
        RtrRsnInf: { Rsn: { Cd: m.reason }, ...(m.info && { AddtlInf: m.info.slice(0, 105) }) },
      },
    },
  });
}

export function buildMessageReject(m: Omit<MessageReject, 'kind'>): string {
  return write('admi.002.spi.1.3', {
    'admi.002.001.01': {
      RltdRef: { Ref: m.ref },
      Rsn: {
        RjctgPtyRsn: m.reason,
        RjctnDtTm: utc(m.at),
        ...(m.description && { RsnDesc: m.description.slice(0, 350) }),
      },
    },
  });
}

// Every value read as text (no number guessing: "0001" stays an agency), namespaces dropped after validation;
// a message in plain form is read to the same tree by the validation (xsd-plain.ts) or else by plain-xml.ts.
export const SPI_XML_PARSER_OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
} as const;
const parser = new XMLParser(SPI_XML_PARSER_OPTIONS);

// biome-ignore lint/suspicious/noExplicitAny: the tree was just validated against the schema that fixes its shape.
type Tree = any;

function readParty(tree: Tree, accountTree: Tree, agentTree: Tree): Partial<SpiParty> {
  const othr = accountTree.Id?.Othr;
  return {
    ...(agentTree && { ispb: agentTree.FinInstnId.ClrSysMmbId.MmbId }),
    ...(tree?.Nm !== undefined && { nome: tree.Nm }),
    ...(tree?.Id.PrvtId && { cpf: tree.Id.PrvtId.Othr.Id }),
    ...(tree?.Id.OrgId && { cnpj: tree.Id.OrgId.Othr.Id }),
    ...(othr && { conta: othr.Id }),
    ...(othr?.Issr !== undefined && { agencia: othr.Issr }),
    ...(accountTree.Tp && { tipoConta: accountTree.Tp.Cd }),
  };
}

const text = (value: Tree): string => (typeof value === 'object' ? value['#text'] : value);

/** Validates and reads a message; SpiMessageInvalid (with admi.002's reason) when it does not validate. */
export function parseSpiMessage(xml: string): SpiMessage {
  let name: string;
  let tree: Tree;
  try {
    ({ name, tree } = validateAndRead(xml));
  } catch (error) {
    if (error instanceof SpiMessageInvalid && error.msgId === undefined) {
      const msgId = /<(?:\w+:)?MsgId>([^<]{1,35})</.exec(xml)?.[1];
      if (msgId) throw new SpiMessageInvalid(error.reason, error.message, msgId);
    }
    throw error;
  }
  const doc: Tree = (tree ?? readPlainXml(xml) ?? parser.parse(xml)).Document;
  switch (name) {
    case 'pacs.008.spi.1.13': {
      const { GrpHdr: h, CdtTrfTxInf: t } = doc.FIToFICstmrCdtTrf;
      const debtor = readParty(t.Dbtr, t.DbtrAcct, t.DbtrAgt);
      return {
        kind: 'pacs.008',
        msgId: h.MsgId,
        createdAt: new Date(h.CreDtTm),
        endToEndId: t.PmtId.EndToEndId,
        ...(t.PmtId.TxId !== undefined && { txid: t.PmtId.TxId }),
        ...(t.MndtRltdInf && { idRec: t.MndtRltdInf.MndtId }),
        ...(t.PmtTpInf && { initiation: t.PmtTpInf.LclInstrm.Prtry }),
        amountCents: parseAmount(text(t.IntrBkSttlmAmt)),
        acceptedAt: new Date(t.AccptncDtTm),
        debtor: debtor as CreditTransfer['debtor'],
        creditor: {
          ...readParty(t.Cdtr, t.CdtrAcct, t.CdtrAgt),
          ...(t.CdtrAcct.Prxy && { chave: t.CdtrAcct.Prxy.Id }),
        },
        ...(t.RmtInf && { infoPagador: t.RmtInf.Ustrd }),
      };
    }
    case 'pacs.002.spi.1.14': {
      const { GrpHdr: h, OrgnlGrpInfAndSts: o, TxInfAndSts: t } = doc.FIToFIPmtStsRpt;
      const info = t.StsRsnInf?.AddtlInf;
      return {
        kind: 'pacs.002',
        msgId: h.MsgId,
        createdAt: new Date(h.CreDtTm),
        originalMsgId: o.OrgnlMsgId,
        originalMsgName: o.OrgnlMsgNmId,
        originalId: t.OrgnlEndToEndId,
        status: t.TxSts,
        ...(t.StsRsnInf && {
          reason: { code: t.StsRsnInf.Rsn.Cd, ...(info && { info: Array.isArray(info) ? info.join(' ') : info }) },
        }),
        ...(t.FctvIntrBkSttlmDt && { settledAt: new Date(t.FctvIntrBkSttlmDt.DtTm) }),
      };
    }
    case 'pacs.004.spi.1.5': {
      const { GrpHdr: h, TxInf: t } = doc.PmtRtr;
      const info = t.RtrRsnInf.AddtlInf;
      return {
        kind: 'pacs.004',
        msgId: h.MsgId,
        createdAt: new Date(h.CreDtTm),
        rtrId: t.RtrId,
        originalEndToEndId: t.OrgnlEndToEndId,
        amountCents: parseAmount(text(t.RtrdIntrBkSttlmAmt)),
        fromIspb: t.InstgAgt.FinInstnId.ClrSysMmbId.MmbId,
        toIspb: t.InstdAgt.FinInstnId.ClrSysMmbId.MmbId,
        reason: t.RtrRsnInf.Rsn.Cd,
        ...(info && { info: Array.isArray(info) ? info.join(' ') : info }),
      };
    }
    default: {
      const r = doc['admi.002.001.01'];
      return {
        kind: 'admi.002',
        ref: r.RltdRef.Ref,
        reason: r.Rsn.RjctgPtyRsn,
        at: new Date(r.Rsn.RjctnDtTm),
        ...(r.Rsn.RsnDesc && { description: r.Rsn.RsnDesc }),
      };
    }
  }
}
