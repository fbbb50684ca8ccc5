/** What a boleto adds to a charge's answers (one-step, /pay, detail, list, carnê parcels): the SDK's shapes. */
import type { BillingCaller } from '../shared/caller.ts';
import { formattedLine } from './barcode.ts';
import QRCode from 'qrcode';
import type { BoletoRow } from './store.ts';

export const boletoLink = (caller: Pick<BillingCaller, 'pagesUrl'>, boleto: Pick<BoletoRow, 'link_token'>) =>
  `${caller.pagesUrl}/boleto/${boleto.link_token}`;

export function boletoConfigurations(boleto: BoletoRow) {
  const { asked, daysToWriteOff } = boleto.terms;
  return {
    days_to_write_off: daysToWriteOff,
    ...(asked.interestType && { interest_type: asked.interestType, interest: asked.interest }),
    ...(asked.fine !== undefined && { fine: asked.fine }),
  };
}

/**
 * The Pix QR's copy-and-paste code and image, when the boleto has one. The image is an SVG data URL (as Efí's
 * `qrcode_image` is): a PNG took ~30 ms of CPU per answer, most of what issuing a boleto cost.
 */
export async function pixOf(boleto: BoletoRow): Promise<{ qrcode: string; qrcode_image: string } | undefined> {
  if (!boleto.pix_qrcode) return undefined;
  const svg = await QRCode.toString(boleto.pix_qrcode, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return {
    qrcode: boleto.pix_qrcode,
    qrcode_image: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
  };
}

export async function boletoFields(caller: Pick<BillingCaller, 'pagesUrl'>, boleto: BoletoRow) {
  const link = boletoLink(caller, boleto);
  const pix = await pixOf(boleto);
  return {
    barcode: formattedLine(boleto.barcode),
    barcode_digits: boleto.barcode,
    ...(pix && { pix }),
    link,
    billet_link: link,
    pdf: { charge: `${link}.pdf` },
    expire_at: boleto.due_date,
    configurations: boletoConfigurations(boleto),
  };
}
