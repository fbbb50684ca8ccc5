/** Static BR codes of the caller's keys, and the decoding of any BR code. No HTTP here. */
import { findAccount } from '../../accounts/store.ts';
import { PIX_GUI, parseBrCode, staticBrCode } from '../../platform/brcode.ts';
import type { Sql } from '../../platform/db/database.ts';
import { ApiError, invalid, type Violation } from '../../platform/errors.ts';
import { parseAmount } from '../../platform/money.ts';
import { keyViolations } from '../charges/rules.ts';
import { tokenFromAddress } from '../loc/store.ts';
import { chargePayload } from '../payload/service.ts';
import type { Caller } from '../shared/caller.ts';
import { qrImageDataUrl } from './image.ts';
import type { DetailRequest, StaticCreate, StaticDetail, StaticView } from './schemas.ts';

export const QRCODE_INVALID = 'qrcode_invalido';

const rejected = (detail: string, property: string, reason: string, value?: unknown): ApiError =>
  invalid(QRCODE_INVALID, detail, [{ property, reason, value }]);

export async function createStaticQrCode(sql: Sql, caller: Caller, body: StaticCreate): Promise<StaticView> {
  const violations: Violation[] = (await keyViolations(sql, caller.accountId, body.chave, 'qrcode')).map((v) => ({
    ...v,
    property: 'chave',
  }));
  if (violations.length)
    throw invalid('chave_invalida', 'A chave informada não é uma chave ativa deste usuário recebedor.', violations);
  const amountCents = body.valor === undefined ? undefined : parseAmount(body.valor);
  if (amountCents === 0)
    throw rejected(
      'O valor de um QR Code estático, quando informado, deve ser positivo.',
      'valor',
      'valor deve ser maior que 0.00.',
      body.valor,
    );
  const account = await findAccount(sql, caller.accountId);
  if (!account) throw new ApiError(500, 'erro_aplicacao', 'Conta do usuário recebedor inexistente.');
  let qrcode: string;
  try {
    qrcode = staticBrCode({
      chave: body.chave,
      amountCents,
      txid: body.txid,
      infoAdicional: body.infoAdicional,
      merchantName: account.nome,
      merchantCity: account.cidade,
    });
  } catch (error) {
    // The only limit left is the 99 characters the key and infoAdicional share in the BR code (ID 26).
    if (!(error instanceof RangeError)) throw error;
    throw rejected(
      'Chave e infoAdicional não cabem juntas no campo 26 do BR Code (99 caracteres).',
      body.infoAdicional ? 'infoAdicional' : 'chave',
      error.message,
    );
  }
  return { qrcode, imagemQrcode: await qrImageDataUrl(qrcode) };
}

/** BR code amounts are free-form decimals ("10", "10.5"); the API always shows two decimals. */
function normaliseAmount(text: string | undefined): string | undefined {
  if (text === undefined || !/^\d{1,10}(\.\d{1,2})?$/.test(text)) return text;
  const [units, cents = ''] = text.split('.');
  return `${Number(units)}.${cents.padEnd(2, '0')}`;
}

/**
 * Static codes are decoded from the text alone. A dynamic code is answered with the payload its
 * location serves, exactly as a payer's institution would get it; only our own locations can be read,
 * since this service does not fetch other institutions' URLs.
 */
export async function detailQrCode(sql: Sql, caller: Caller, { pixCopiaECola }: DetailRequest) {
  const property = 'pixCopiaECola';
  let parsed: ReturnType<typeof parseBrCode>;
  try {
    parsed = parseBrCode(pixCopiaECola.trim());
  } catch (error) {
    throw rejected('O pixCopiaECola informado não é um BR Code válido.', property, (error as Error).message);
  }
  if (!parsed.valid)
    throw rejected(
      'O pixCopiaECola informado não é um BR Code válido: CRC ausente ou incorreto.',
      property,
      'CRC16 (ID 63) não confere.',
    );
  const account = parsed.merchantAccount;
  if (account.get('00')?.toLowerCase() !== PIX_GUI)
    throw rejected('O BR Code informado não é um Pix.', property, `GUI (ID 26-00) diferente de ${PIX_GUI}.`);
  const url = account.get('25');
  if (url === undefined) {
    const chave = account.get('01');
    if (!chave) throw rejected('O BR Code estático não traz chave (ID 26-01).', property, 'chave ausente.');
    const txid = parsed.additionalData.get('05');
    const detail: StaticDetail = {
      tipo: 'estatico',
      chave,
      ...(parsed.fields.has('54') && { valor: normaliseAmount(parsed.fields.get('54')) }),
      ...(txid && txid !== '***' && { txid }),
      ...(account.has('02') && { infoAdicional: account.get('02') }),
      recebedor: { nome: parsed.fields.get('59') ?? '', cidade: parsed.fields.get('60') ?? '' },
    };
    return detail;
  }
  const token = tokenFromAddress(caller.publicUrl, url);
  if (!token)
    throw invalid(
      'qrcode_nao_suportado',
      `O BR Code dinâmico aponta para ${url}, que não é uma location deste serviço.`,
      [{ property, reason: 'location de outra instituição.', value: url }],
    );
  const { tipoCob, payload } = await chargePayload(sql, { token, now: caller.now, publicUrl: caller.publicUrl });
  return { tipo: 'dinamico' as const, tipoCob, ...payload };
}
