/** What a person sees of a BR code: the QR image and a page with the image and the copy-and-paste text. */
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

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * The `linkVisualizacao` page. Self-contained (image inline, no scripts from elsewhere) so it can be
 * opened from anywhere; the only script copies the code to the clipboard.
 */
export function visualizationPage(input: { recebedor: string; brCode: string; image: string }): string {
  const recebedor = escapeHtml(input.recebedor);
  const code = escapeHtml(input.brCode);
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pix - ${recebedor}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;text-align:center;color:#222}
img{width:100%;max-width:${LIMITS.qrImageSidePixels}px;image-rendering:pixelated}
textarea{width:100%;height:7rem;font-family:monospace;font-size:.8rem;word-break:break-all}
button{margin-top:.5rem;padding:.5rem 1rem;font-size:1rem}
</style>
</head>
<body>
<h1>Pagar com Pix</h1>
<p>Recebedor: <strong>${recebedor}</strong></p>
<img src="${input.image}" alt="QR Code Pix">
<p>Ou copie o código Pix Copia e Cola:</p>
<textarea id="code" readonly>${code}</textarea>
<button type="button" onclick="navigator.clipboard.writeText(document.getElementById('code').value)">Copiar código</button>
</body>
</html>
`;
}
