/**
 * The boleto as a PDF (pdf-lib, standard fonts, nothing fetched): the payer's receipt and the FEBRABAN
 * "ficha de compensação" — bank code, linha digitável, payment place, due date, beneficiary, nosso número,
 * amount, instructions (fine, interest, discounts, message), payer — with the barcode drawn in interleaved
 * 2 of 5 (ITF) and the Pix QR beside it; a balance sheet, when defined, on a page of its own. A carnê is its
 * parcels' pages in one document.
 */
import QRCode from 'qrcode';
import type { PDFDocument, PDFPage, PDFPageDrawTextOptions } from 'pdf-lib';
import { drawable, pdfLib, standardFonts, type PdfFonts, type PdfLib } from '../../platform/pdf.ts';
import { brazilianDate } from '../../platform/calendar.ts';
import type { AccountRow } from '../../accounts/store.ts';
import type { BoletoRow } from './store.ts';
import { BOLETO_BANK_CODE, formattedLine } from './barcode.ts';
import { payerDocument, payerName } from './issue.ts';

/** pdf-lib, loaded by the first PDF (src/platform/pdf.ts). */
let lib: PdfLib;

const MM = 72 / 25.4;
/** ITF widths: narrow 0.254 mm, wide three times that; 44 digits come to 103 mm, FEBRABAN's length. */
const NARROW = 0.254 * MM;
const WIDE = 3 * NARROW;
const BAR_HEIGHT = 13 * MM;
const ITF: Record<string, string> = {
  '0': 'nnwwn',
  '1': 'wnnnw',
  '2': 'nwnnw',
  '3': 'wwnnn',
  '4': 'nnwnw',
  '5': 'wnwnn',
  '6': 'nwwnn',
  '7': 'nnnww',
  '8': 'wnnwn',
  '9': 'nwnwn',
};

/** The bars of an even-length digit string: start (4 narrow), pairs (first digit bars, second spaces), stop. */
export function itfBars(digits: string): { x: number; width: number }[] {
  const elements: [bar: boolean, wide: boolean][] = [
    [true, false],
    [false, false],
    [true, false],
    [false, false],
  ];
  for (let i = 0; i < digits.length; i += 2) {
    const bars = ITF[digits[i]!]!;
    const spaces = ITF[digits[i + 1]!]!;
    for (let k = 0; k < 5; k++) elements.push([true, bars[k] === 'w'], [false, spaces[k] === 'w']);
  }
  elements.push([true, true], [false, false], [true, false]);
  const bars: { x: number; width: number }[] = [];
  let x = 0;
  for (const [bar, wide] of elements) {
    const width = wide ? WIDE : NARROW;
    if (bar) bars.push({ x, width });
    x += width;
  }
  return bars;
}

const brl = (cents: number) =>
  `R$ ${(cents / 100).toLocaleString('pt-BR', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** What the instructions box says: each rule in the cents the boleto was issued with. */
function instructions(boleto: BoletoRow): string[] {
  const t = boleto.terms;
  const lines: string[] = [];
  if (t.conditionalDiscount)
    lines.push(
      `Até ${brazilianDate(t.conditionalDiscount.untilDate)}, conceder desconto de ${brl(t.conditionalDiscount.cents)}.`,
    );
  if (t.fineCents) lines.push(`Após o vencimento, cobrar multa de ${brl(t.fineCents)}.`);
  if (t.interestCentsPerDay)
    lines.push(`Após o vencimento, cobrar juros de ${brl(t.interestCentsPerDay)} por dia de atraso.`);
  lines.push(`Não receber após ${t.daysToWriteOff} dias do vencimento.`);
  if (boleto.message) lines.push(boleto.message);
  return lines;
}

/** Names, addresses and messages are the integrator's: drawn as the standard fonts can (platform/pdf.ts). */
function drawText(page: PDFPage, text: string, options: PDFPageDrawTextOptions & { font: PdfFonts['regular'] }) {
  page.drawText(drawable(options.font, text), options);
}

function field(page: PDFPage, fonts: PdfFonts, x: number, y: number, w: number, label: string, value: string) {
  page.drawRectangle({ x, y, width: w, height: 22, borderColor: lib.rgb(0, 0, 0), borderWidth: 0.5 });
  drawText(page, label, { x: x + 2, y: y + 14, size: 6, font: fonts.regular });
  drawText(page, value, { x: x + 2, y: y + 4, size: 9, font: fonts.bold });
}

async function boletoPage(doc: PDFDocument, fonts: PdfFonts, boleto: BoletoRow, owner: AccountRow, parcel?: string) {
  const page = doc.addPage([595.28, 841.89]);
  const left = 30;
  const width = 535;
  const line = formattedLine(boleto.barcode);
  const amount = brl(Number(boleto.amount_cents));
  const due = brazilianDate(boleto.due_date);
  const nossoNumero = String(boleto.charge_id).padStart(17, '0');
  const beneficiary = `${owner.nome} - ${owner.documento}`;
  const payer = `${payerName(boleto.customer)} - ${payerDocument(boleto.customer)}`;
  const header = (y: number) => {
    drawText(page, 'pixd', { x: left, y, size: 14, font: fonts.bold });
    drawText(page, `| ${BOLETO_BANK_CODE} |`, { x: left + 50, y, size: 14, font: fonts.bold });
    drawText(page, line, { x: left + 140, y, size: 10.5, font: fonts.bold });
  };
  // The payer's receipt.
  let y = 800;
  header(y);
  y -= 30;
  drawText(page, `Recibo do pagador${parcel ? ` - parcela ${parcel}` : ''}`, {
    x: left,
    y: y + 8,
    size: 8,
    font: fonts.regular,
  });
  field(page, fonts, left, y - 22, 335, 'Beneficiário', beneficiary);
  field(page, fonts, left + 335, y - 22, 100, 'Vencimento', due);
  field(page, fonts, left + 435, y - 22, 100, 'Valor do documento', amount);
  field(page, fonts, left, y - 44, 335, 'Pagador', payer);
  field(page, fonts, left + 335, y - 44, 200, 'Nosso número', nossoNumero);
  y -= 80;
  page.drawLine({ start: { x: left, y }, end: { x: left + width, y }, dashArray: [3, 3], thickness: 0.5 });
  // The ficha de compensação.
  y -= 30;
  header(y);
  y -= 28;
  field(page, fonts, left, y, 435, 'Local de pagamento', 'Pagável em qualquer banco, e pelo Pix no QR Code abaixo');
  field(page, fonts, left + 435, y, 100, 'Vencimento', due);
  y -= 22;
  field(page, fonts, left, y, 435, 'Beneficiário', beneficiary);
  field(page, fonts, left + 435, y, 100, 'Agência/Código do beneficiário', String(boleto.account_id).padStart(8, '0'));
  y -= 22;
  field(page, fonts, left, y, 110, 'Data do documento', brazilianDate(boleto.created_at.toISOString().slice(0, 10)));
  field(page, fonts, left + 110, y, 110, 'Número do documento', String(boleto.charge_id));
  field(page, fonts, left + 220, y, 70, 'Espécie doc.', 'DM');
  field(page, fonts, left + 290, y, 145, 'Carteira / Espécie', '01 / R$');
  field(page, fonts, left + 435, y, 100, 'Nosso número', nossoNumero);
  y -= 22;
  field(page, fonts, left + 435, y, 100, '(=) Valor do documento', amount);
  const box = 110;
  page.drawRectangle({
    x: left,
    y: y - box + 22,
    width: 435,
    height: box,
    borderColor: lib.rgb(0, 0, 0),
    borderWidth: 0.5,
  });
  drawText(page, 'Instruções (texto de responsabilidade do beneficiário)', {
    x: left + 2,
    y: y + 14,
    size: 6,
    font: fonts.regular,
  });
  instructions(boleto).forEach((text, i) =>
    drawText(page, text.slice(0, 95), { x: left + 4, y: y + 2 - i * 11, size: 8, font: fonts.regular }),
  );
  for (const [i, label] of ['(-) Desconto', '(+) Mora / Multa', '(=) Valor cobrado'].entries())
    field(page, fonts, left + 435, y - 22 * (i + 1), 100, label, '');
  y -= box;
  field(page, fonts, left, y - 22, width, 'Pagador', payer);
  const address = boleto.customer.address;
  if (address)
    drawText(
      page,
      `${address.street}, ${address.number} - ${address.neighborhood} - ${address.city}/${address.state} - CEP ${address.zipcode}`,
      {
        x: left + 200,
        y: y - 18,
        size: 7,
        font: fonts.regular,
      },
    );
  y -= 40;
  drawText(page, 'Ficha de compensação - autenticação mecânica', { x: left, y, size: 7, font: fonts.regular });
  // The barcode (ITF) and the Pix QR.
  const barsY = y - 10 - BAR_HEIGHT;
  for (const bar of itfBars(boleto.barcode))
    page.drawRectangle({ x: left + bar.x, y: barsY, width: bar.width, height: BAR_HEIGHT, color: lib.rgb(0, 0, 0) });
  if (boleto.pix_qrcode) {
    const png = await doc.embedPng(await QRCode.toBuffer(boleto.pix_qrcode, { errorCorrectionLevel: 'M', margin: 1 }));
    const side = 100;
    page.drawImage(png, { x: left + width - side, y: barsY - 60, width: side, height: side });
    drawText(page, 'Pague com Pix', { x: left + width - side + 22, y: barsY - 72, size: 8, font: fonts.bold });
  }
}

function balanceSheetPage(doc: PDFDocument, fonts: PdfFonts, sheet: NonNullable<BoletoRow['balance_sheet']>) {
  const page = doc.addPage([595.28, 841.89]);
  let y = 800;
  drawText(page, sheet.title.slice(0, 80), { x: 30, y, size: 14, font: fonts.bold });
  for (const section of sheet.body) {
    y -= 24;
    if (y < 40) break;
    drawText(page, section.header.slice(0, 90), { x: 30, y, size: 10, font: fonts.bold });
    for (const table of section.tables)
      for (const row of table.rows) {
        y -= 14;
        if (y < 40) return;
        const cellWidth = 535 / Math.max(1, row.length);
        row.forEach((cell, i) =>
          drawText(page, cell.text.slice(0, Math.floor(cellWidth / 5)), {
            x: 30 + i * cellWidth,
            y,
            size: 8,
            font: cell.style === 'bold' ? fonts.bold : fonts.regular,
          }),
        );
      }
  }
}

/** A PDF of one boleto, or of a carnê's parcels (`parcels` numbered from 1). */
export async function boletoPdf(
  boletos: BoletoRow[],
  owner: AccountRow,
  options: { carnet?: boolean } = {},
): Promise<Uint8Array> {
  lib = await pdfLib();
  const doc = await lib.PDFDocument.create();
  doc.setTitle(options.carnet ? `Carnê - ${owner.nome}` : `Boleto ${boletos[0]!.charge_id} - ${owner.nome}`);
  doc.setProducer('pixd');
  doc.setCreationDate(boletos[0]!.created_at);
  doc.setModificationDate(boletos[0]!.created_at);
  const fonts = await standardFonts(doc);
  for (const [i, boleto] of boletos.entries()) {
    await boletoPage(doc, fonts, boleto, owner, options.carnet ? `${i + 1}/${boletos.length}` : undefined);
    if (boleto.balance_sheet) balanceSheetPage(doc, fonts, boleto.balance_sheet);
  }
  return doc.save();
}
