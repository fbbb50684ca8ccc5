/**
 * A receipt as a one-page PDF (pdfkit, its built-in Helvetica: no font files to ship). Amounts in reais as a
 * person reads them, the time in Brasília's (said so on the page), documents already masked by the service.
 * pdfkit is loaded on the first receipt, not at start.
 */
import type { Receipt, ReceiptParty } from './service.ts';

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const BRASILIA = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo',
  dateStyle: 'short',
  timeStyle: 'medium',
});
/** Intl separates the currency sign with a no-break space; a plain one reads the same and extracts as typed. */
const plain = (text: string) => text.replace(/\u00a0|\u202f/g, ' ');

export async function receiptPdf(receipt: Receipt): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A5',
    margin: 40,
    info: { Title: receipt.titulo, Subject: receipt.endToEndId, Producer: 'pixd' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => doc.on('end', resolve));

  doc.font('Helvetica-Bold').fontSize(16).text(receipt.titulo);
  doc
    .moveDown(0.5)
    .fontSize(22)
    .text(plain(BRL.format(receipt.amountCents / 100)));
  doc
    .font('Helvetica')
    .fontSize(10)
    .text(`${plain(BRASILIA.format(receipt.at))} (horário de Brasília)`);
  const line = (label: string, value: string) =>
    doc.font('Helvetica-Bold').text(`${label}: `, { continued: true }).font('Helvetica').text(value);
  const partyBlock = (title: string, who: ReceiptParty) => {
    doc.moveDown().font('Helvetica-Bold').fontSize(12).text(title).fontSize(10);
    line('Nome', who.nome);
    if (who.documento) line('CPF/CNPJ', who.documento);
    if (who.chave) line('Chave Pix', who.chave);
  };
  partyBlock('Pagador', receipt.pagador);
  partyBlock('Recebedor', receipt.recebedor);
  doc.moveDown().font('Helvetica-Bold').fontSize(12).text('Transação').fontSize(10);
  line('ID fim a fim', receipt.endToEndId);
  for (const [label, value] of receipt.detalhes) line(label, value);
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}
