/**
 * What pixd's PDFs (Pix receipts, boletos and carnês) share: pdf-lib, loaded by the first PDF rather than by
 * every process that loads the routes (~0.2 s of CPU), and text its standard fonts can draw.
 */
import type { PDFDocument, PDFFont } from 'pdf-lib';

export type PdfLib = typeof import('pdf-lib');

let loaded: PdfLib | undefined;

export async function pdfLib(): Promise<PdfLib> {
  loaded ??= await import('pdf-lib');
  return loaded;
}

export interface PdfFonts {
  regular: PDFFont;
  bold: PDFFont;
}

/** Helvetica and Helvetica-Bold, the standard fonts every reader has: nothing to ship or fetch. */
export async function standardFonts(doc: PDFDocument): Promise<PdfFonts> {
  const lib = await pdfLib();
  return {
    regular: await doc.embedFont(lib.StandardFonts.Helvetica),
    bold: await doc.embedFont(lib.StandardFonts.HelveticaBold),
  };
}

/** Each font's code points, read once: a boleto page draws some fifty texts in the same two fonts. */
const characterSets = new WeakMap<PDFFont, Set<number>>();
function characterSet(font: PDFFont): Set<number> {
  let set = characterSets.get(font);
  if (!set) characterSets.set(font, (set = new Set(font.getCharacterSet())));
  return set;
}

/**
 * `text` as the standard fonts can draw it. They encode WinAnsi only, and pdf-lib throws on anything else, so a
 * payer named in another script would turn a PDF into a 500: accents outside WinAnsi lose their mark (NFKD),
 * what is left unencodable becomes "?", and no-break spaces (Intl's currency) become plain ones.
 */
export function drawable(font: PDFFont, text: string): string {
  const supported = characterSet(font);
  let out = '';
  for (const char of text.replace(/[\u00a0\u202f]/g, ' ')) {
    if (supported.has(char.codePointAt(0)!)) out += char;
    else {
      const base = char.normalize('NFKD').replace(/\p{M}/gu, '');
      out += [...base].every((c) => supported.has(c.codePointAt(0)!)) && base ? base : '?';
    }
  }
  return out;
}

/** `text` cut into lines no wider than `widthPt` at `sizePt`, at spaces where it can (a long id breaks anywhere). */
export function wrap(font: PDFFont, text: string, sizePt: number, widthPt: number): string[] {
  const lines: string[] = [];
  let line = '';
  const fits = (candidate: string) => font.widthOfTextAtSize(candidate, sizePt) <= widthPt;
  for (const word of text.split(' ')) {
    const candidate = line ? `${line} ${word}` : word;
    if (fits(candidate)) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    for (const char of word) {
      if (!fits(line + char) && line) {
        lines.push(line);
        line = '';
      }
      line += char;
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}
