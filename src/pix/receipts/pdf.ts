/**
 * A receipt as a one-page A5 PDF (pdf-lib and its standard Helvetica, as the boletos: no font files to ship).
 * Amounts in reais as a person reads them, the time in Brasília's (said so on the page), documents already
 * masked by the service.
 */
import type { PDFPage } from 'pdf-lib';
import { drawable, pdfLib, standardFonts, wrap, type PdfFonts } from '../../platform/pdf.ts';
import type { Receipt, ReceiptParty } from './service.ts';

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const BRASILIA = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo',
  dateStyle: 'short',
  timeStyle: 'medium',
});
const A5_PT: [number, number] = [419.53, 595.28];
const MARGIN_PT = 40;
const TEXT_WIDTH_PT = A5_PT[0] - 2 * MARGIN_PT;

/** Writes downwards from the top margin, a line at a time. */
class Column {
  private y = A5_PT[1] - MARGIN_PT;
  constructor(
    private readonly page: PDFPage,
    private readonly fonts: PdfFonts,
  ) {}

  text(text: string, sizePt: number, bold = false): void {
    const font = bold ? this.fonts.bold : this.fonts.regular;
    for (const line of wrap(font, drawable(font, text), sizePt, TEXT_WIDTH_PT))
      this.draw(line, MARGIN_PT, sizePt, bold);
  }

  /** "Label: value", the label bold, the value wrapped under itself. */
  field(label: string, value: string, sizePt = 10): void {
    const heading = `${label}: `;
    const indentPt = this.fonts.bold.widthOfTextAtSize(heading, sizePt);
    const lines = wrap(this.fonts.regular, drawable(this.fonts.regular, value), sizePt, TEXT_WIDTH_PT - indentPt);
    this.page.drawText(heading, { x: MARGIN_PT, y: this.y - sizePt, size: sizePt, font: this.fonts.bold });
    for (const line of lines) this.draw(line, MARGIN_PT + indentPt, sizePt, false);
  }

  gap(sizePt: number): void {
    this.y -= sizePt;
  }

  private draw(line: string, x: number, sizePt: number, bold: boolean): void {
    this.y -= sizePt;
    this.page.drawText(line, { x, y: this.y, size: sizePt, font: bold ? this.fonts.bold : this.fonts.regular });
    this.y -= sizePt * 0.25;
  }
}

export async function receiptPdf(receipt: Receipt): Promise<Buffer> {
  const doc = await (await pdfLib()).PDFDocument.create();
  doc.setTitle(receipt.titulo);
  doc.setSubject(receipt.endToEndId);
  doc.setProducer('pixd');
  doc.setCreationDate(receipt.at);
  const column = new Column(doc.addPage(A5_PT), await standardFonts(doc));

  column.text(receipt.titulo, 16, true);
  column.gap(6);
  column.text(BRL.format(receipt.amountCents / 100), 22, true);
  column.text(`${BRASILIA.format(receipt.at)} (horário de Brasília)`, 10);
  const partyBlock = (title: string, who: ReceiptParty) => {
    column.gap(10);
    column.text(title, 12, true);
    column.field('Nome', who.nome);
    if (who.documento) column.field('CPF/CNPJ', who.documento);
    if (who.chave) column.field('Chave Pix', who.chave);
  };
  partyBlock('Pagador', receipt.pagador);
  partyBlock('Recebedor', receipt.recebedor);
  column.gap(10);
  column.text('Transação', 12, true);
  column.field('ID fim a fim', receipt.endToEndId);
  for (const [label, value] of receipt.detalhes) column.field(label, value);
  return Buffer.from(await doc.save());
}
