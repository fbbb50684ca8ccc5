/**
 * The CNAB 240 account statement layout of FEBRABAN ("extrato de conta corrente para conciliação bancária"):
 * header de arquivo (0), header de lote (1, operation E, service 04, form 40) carrying the opening balance,
 * one detail record segment E (3) per movement, trailer de lote (5) carrying the closing balance and the
 * debit and credit totals, trailer de arquivo (9). Every record is 240 characters; numbers are right-aligned
 * and zero-filled, text left-aligned, blank-filled, upper-case ASCII. Positions: docs/statements.md.
 */
import { brasiliaDateTime } from '../../platform/calendar.ts';

/** FEBRABAN's code of the bank (positions 1–3). pixd has no COMPE code: a fictitious one, as its ISPBs are. */
export const STATEMENT_BANK_CODE = '999';
export const STATEMENT_BANK_NAME = 'PIXD';
const FILE_LAYOUT_VERSION = '089';
const BATCH_LAYOUT_VERSION = '033';
const RECORD_CHARS = 240;
export const CNAB_EOL = '\r\n';

/** Account data every record of the batch repeats (positions 18–102). */
export interface CnabAccount {
  documento: string;
  conta: string;
  nome: string;
}

export interface CnabMovement {
  /** Signed: positive credit, negative debit. */
  amountCents: number;
  /** Brasília date, YYYY-MM-DD. */
  date: string;
  /** FEBRABAN category (E012): 1xx debits, 2xx credits. */
  category: string;
  /** The bank's own code of the movement (E013, 4 characters) and its description (E014, 25). */
  code: string;
  history: string;
  /** Document number / complement (positions 202–240): the movement's end-to-end or return id. */
  document: string;
}

export interface CnabStatement {
  account: CnabAccount;
  /** Sequence number of the file (NSA). */
  sequence: number;
  generatedAt: Date;
  /** Brasília dates of the opening and closing balances. */
  startDate: string;
  endDate: string;
  openingCents: number;
  closingCents: number;
  movements: Iterable<CnabMovement>;
}

const num = (value: number | string, width: number): string => {
  const text = String(value);
  if (!/^\d*$/.test(text) || text.length > width) throw new Error(`CNAB: ${text} does not fit ${width} digits`);
  return text.padStart(width, '0');
};

/** Text as CNAB writes it: upper case, no accents, printable ASCII, cut or blank-filled to the width. */
const alpha = (value: string, width: number): string =>
  value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^\x20-\x7e]/g, ' ')
    .slice(0, width)
    .padEnd(width, ' ');

const blank = (width: number) => ' '.repeat(width);

/** DDMMAAAA from YYYY-MM-DD. */
const cnabDate = (date: string) => `${date.slice(8, 10)}${date.slice(5, 7)}${date.slice(0, 4)}`;

function record(fields: string[]): string {
  const text = fields.join('');
  if (text.length !== RECORD_CHARS) throw new Error(`CNAB record of ${text.length} characters`);
  return text + CNAB_EOL;
}

/** Positions 18–72 of every record but the file trailer: inscription, agreement, branch, account. */
function companyAccount(a: CnabAccount): string[] {
  return [
    a.documento.length === 11 ? '1' : '2',
    num(a.documento, 14),
    blank(20),
    num('1', 5),
    ' ',
    num(a.conta.replace(/\D/g, '').slice(-12), 12),
    ' ',
    ' ',
  ];
}

/** Positions 18–102: the account and the company's name. */
const company = (a: CnabAccount) => [...companyAccount(a), alpha(a.nome, 30)];

/** An amount as 16 integer and 2 decimal digits, and its D/C situation. */
const amount18 = (cents: number) => num(Math.abs(cents), 18);
const situation = (cents: number) => (cents < 0 ? 'D' : 'C');

function headerArquivo(s: CnabStatement): string {
  // "YYYY-MM-DD HH:MM:SS" in Brasília.
  const at = brasiliaDateTime(s.generatedAt);
  return record([
    STATEMENT_BANK_CODE,
    '0000',
    '0',
    blank(9),
    ...company(s.account),
    alpha(STATEMENT_BANK_NAME, 30),
    blank(10),
    '2',
    cnabDate(at.slice(0, 10)),
    at.slice(11).replaceAll(':', ''),
    num(s.sequence, 6),
    FILE_LAYOUT_VERSION,
    '01600',
    blank(20),
    blank(20),
    blank(29),
  ]);
}

function headerLote(s: CnabStatement): string {
  return record([
    STATEMENT_BANK_CODE,
    '0001',
    '1',
    'E',
    '04',
    '40',
    BATCH_LAYOUT_VERSION,
    ' ',
    ...company(s.account),
    blank(40),
    cnabDate(s.startDate),
    amount18(s.openingCents),
    situation(s.openingCents),
    'F',
    'BRL',
    num(s.sequence % 100000, 5),
    blank(62),
  ]);
}

function segmentoE(s: CnabStatement, seq: number, m: CnabMovement): string {
  return record([
    STATEMENT_BANK_CODE,
    '0001',
    '3',
    num(seq, 5),
    'E',
    blank(3),
    ...company(s.account),
    blank(6),
    'DPV',
    '00',
    blank(20),
    'S',
    cnabDate(m.date),
    cnabDate(m.date),
    amount18(m.amountCents),
    m.amountCents < 0 ? 'D' : 'C',
    num(m.category, 3),
    alpha(m.code, 4),
    alpha(m.history, 25),
    alpha(m.document, 39),
  ]);
}

function trailerLote(s: CnabStatement, records: number, debitsCents: number, creditsCents: number): string {
  return record([
    STATEMENT_BANK_CODE,
    '0001',
    '5',
    blank(9),
    ...companyAccount(s.account),
    blank(16),
    amount18(0),
    amount18(0),
    amount18(0),
    cnabDate(s.endDate),
    amount18(s.closingCents),
    situation(s.closingCents),
    'F',
    num(records, 6),
    amount18(debitsCents),
    amount18(creditsCents),
    blank(28),
  ]);
}

function trailerArquivo(records: number): string {
  return record([STATEMENT_BANK_CODE, '9999', '9', blank(9), num(1, 6), num(records, 6), num(1, 6), blank(205)]);
}

/**
 * The whole file. One batch (one account); its record count includes its header and trailer, the file's
 * includes every record. Throws if the movements do not take the opening balance to the closing one: a file
 * that does not reconcile is never written.
 */
export function cnabStatement(s: CnabStatement): string {
  const lines = [headerArquivo(s), headerLote(s)];
  let debits = 0;
  let credits = 0;
  for (const m of s.movements) {
    if (m.amountCents < 0) debits -= m.amountCents;
    else credits += m.amountCents;
    lines.push(segmentoE(s, lines.length - 1, m));
  }
  if (s.openingCents + credits - debits !== s.closingCents)
    throw new Error(
      `CNAB statement does not reconcile: ${s.openingCents} + ${credits} - ${debits} ≠ ${s.closingCents}`,
    );
  // The batch's header and detail records, and its trailer.
  const batchRecords = lines.length;
  lines.push(trailerLote(s, batchRecords, debits, credits));
  lines.push(trailerArquivo(lines.length + 1));
  return lines.join('');
}
