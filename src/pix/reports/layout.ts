/**
 * The report file layout (version 1), one record per line, fields separated by `;`, lines ended by `\n`,
 * UTF-8. Amounts are two-decimal strings with a dot, as everywhere at the Pix edge; instants are ISO 8601
 * UTC. The first field names the record:
 *
 *   H;versaoLayout;idRelatorio;conta;documento;dataMovimento;geradoEm;tipoRegistros
 *   D;tipoRegistro;dataHora;natureza;valor;saldoApos;identificador;lancamento
 *   T;quantidadeRegistros;totalCreditos;totalDebitos;saldoDiaAnterior;outrosMovimentos;saldoDia
 *
 * D lines: a movement (natureza C credit or D debit, `valor` always positive, `saldoApos` the available
 * balance right after it, `identificador` the entry's reference: endToEndId, rtrId...; `lancamento` the
 * journal entry id), or a balance (`saldoDiaAnterior` first, `saldoDia` last, natureza and identifiers
 * empty, `valor` = `saldoApos` = the balance at the start / end of the day).
 *
 * T: `quantidadeRegistros` counts every line of the file, H and T included. Totals cover the D movement
 * lines; `outrosMovimentos` is the net of the day's movements that are not data lines (types not selected,
 * or kinds no key describes, such as blocks), so that always
 *   saldoDiaAnterior + totalCreditos - totalDebitos + outrosMovimentos = saldoDia.
 */
import { formatAmount } from '../../platform/money.ts';
import { recordTypeOf, type TipoRegistro } from './record-types.ts';

export const LAYOUT_VERSION = '1';
const EOL = '\n';

/** Free-text fields never break the layout: separators and line breaks become spaces. */
const text = (value: string) => value.replace(/[;\r\n\0]/g, ' ');
/** Fields are numbers, amounts, instants, record names or `text()`: none can hold a separator. */
const line = (fields: (string | number)[]) => fields.join(';') + EOL;

export interface ReportHeader {
  publicId: string;
  conta: string;
  documento: string;
  dataMovimento: string;
  generatedAt: Date;
  tipos: readonly TipoRegistro[];
}

export function headerLine(h: ReportHeader): string {
  return line([
    'H',
    LAYOUT_VERSION,
    text(h.publicId),
    text(h.conta),
    text(h.documento),
    h.dataMovimento,
    h.generatedAt.toISOString(),
    h.tipos.join(','),
  ]);
}

/** One journal line on the customer's available account. */
export interface Movement {
  entryId: number;
  kind: string;
  reference: string;
  atMs: number;
  amountCents: number;
}

/**
 * Turns the day's movements, in journal order, into data lines and keeps the running balance and the
 * trailer's totals. Holds only numbers: the caller writes each returned string out as it goes.
 */
export class Statement {
  private balanceCents: number;
  private creditsCents = 0;
  private debitsCents = 0;
  private unlistedCents = 0;
  /** H counts from the start; T is added by `closing`. */
  private records = 1;

  constructor(
    private readonly selected: ReadonlySet<TipoRegistro>,
    private readonly openingCents: number,
    private readonly day: { start: Date; end: Date },
  ) {
    this.balanceCents = openingCents;
  }

  private balanceLine(tipo: 'saldoDiaAnterior' | 'saldoDia', at: Date, cents: number): string {
    if (!this.selected.has(tipo)) return '';
    this.records++;
    return line(['D', tipo, at.toISOString(), '', formatAmount(cents), formatAmount(cents), '', '']);
  }

  opening(): string {
    return this.balanceLine('saldoDiaAnterior', this.day.start, this.openingCents);
  }

  /** The movement's data line, or '' when it is not selected (it then counts in outrosMovimentos). */
  movement(m: Movement): string {
    this.balanceCents += m.amountCents;
    const tipo = recordTypeOf(m.kind, m.amountCents);
    if (!tipo || !this.selected.has(tipo)) {
      this.unlistedCents += m.amountCents;
      return '';
    }
    this.records++;
    const credit = m.amountCents > 0;
    if (credit) this.creditsCents += m.amountCents;
    else this.debitsCents -= m.amountCents;
    return line([
      'D',
      tipo,
      new Date(m.atMs).toISOString(),
      credit ? 'C' : 'D',
      formatAmount(Math.abs(m.amountCents)),
      formatAmount(this.balanceCents),
      text(m.reference),
      m.entryId,
    ]);
  }

  /** The saldoDia line (when selected) and the trailer. */
  closing(): string {
    const saldoDia = this.balanceLine('saldoDia', this.day.end, this.balanceCents);
    this.records++;
    const trailer = line([
      'T',
      this.records,
      formatAmount(this.creditsCents),
      formatAmount(this.debitsCents),
      formatAmount(this.openingCents),
      formatAmount(this.unlistedCents),
      formatAmount(this.balanceCents),
    ]);
    return saldoDia + trailer;
  }

  get lineCount(): number {
    return this.records;
  }
}
