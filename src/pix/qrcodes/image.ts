/** The QR image of a BR code (the page around it is page.ts). */
import QRCode from 'qrcode';
import { LIMITS } from '../../platform/limits.ts';

/** PNG data URL (`imagemQrcode`). Level M: the redundancy payer apps' scanners are tuned for. */
export function qrImageDataUrl(brCode: string): Promise<string> {
  return QRCode.toDataURL(brCode, {
    type: 'image/png',
    errorCorrectionLevel: 'M',
    margin: 2,
    width: LIMITS.qrImageSidePixels,
  });
}
