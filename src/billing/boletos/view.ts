/** What a boleto adds to a charge's answers (one-step, /pay, detail, list, carnê parcels): the SDK's shapes. */
import type { BillingCaller } from '../shared/caller.ts';
import { formattedLine } from './barcode.ts';
import { qrImageDataUrl } from '../../pix/qrcodes/image.ts';
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

/** The Pix QR's copy-and-paste code and image, when the boleto has one. */
export async function pixOf(boleto: BoletoRow): Promise<{ qrcode: string; qrcode_image: string } | undefined> {
  if (!boleto.pix_qrcode) return undefined;
  return { qrcode: boleto.pix_qrcode, qrcode_image: await qrImageDataUrl(boleto.pix_qrcode) };
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
