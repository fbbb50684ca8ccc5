/**
 * Where settings take effect on a received Pix: the payment engine asks `receivingRefusal` once the
 * receiving account and key are known, and refuses what the receiver's settings refuse. Returned as data
 * (not thrown) so this module does not depend on the engine.
 */
import type { Sql } from '../../platform/db/database.ts';
import { keySettings, receberSemChave, type KeySettings } from './store.ts';

export interface ReceivingPix {
  accountId: number;
  /** null: paid by bank data (agência/conta), not to a key. */
  chave: string | null;
  txid: string | null;
  payer: { cpf?: string; cnpj?: string };
  /** The payer scanned (or pasted) a static QR code of the key. */
  fromStaticQrCode: boolean;
}

export interface ReceivingRefusal {
  code: string;
  message: string;
}

export async function receivingRefusal(sql: Sql, pix: ReceivingPix): Promise<ReceivingRefusal | undefined> {
  if (pix.chave === null) {
    if (await receberSemChave(sql, pix.accountId)) return undefined;
    return {
      code: 'recebimento_sem_chave_recusado',
      message: 'A conta recebedora só aceita Pix por chave (receberSemChave: false).',
    };
  }
  return keyRefusal(await keySettings(sql, pix.accountId, pix.chave), { ...pix, chave: pix.chave });
}

/**
 * What a key's settings refuse, given the settings already read: the settlement path reads them in the same
 * statement as the charge (src/pix/payments/store.ts), so the rule must not fetch them itself.
 */
export function keyRefusal(settings: KeySettings, pix: ReceivingPix & { chave: string }): ReceivingRefusal | undefined {
  if (settings.txidObrigatorio && !pix.txid) {
    return { code: 'txid_obrigatorio', message: `A chave ${pix.chave} só aceita Pix com txid (txidObrigatorio).` };
  }
  if (settings.qrCodeEstaticoRecusarTodos && pix.fromStaticQrCode) {
    return {
      code: 'qrcode_estatico_recusado',
      message: `A chave ${pix.chave} recusa pagamentos de QR Code estático (qrCodeEstatico.recusarTodos).`,
    };
  }
  const payerType = pix.payer.cnpj ? 'PJ' : pix.payer.cpf ? 'PF' : undefined;
  if (payerType && settings.recusarTipoPessoa === payerType) {
    return {
      code: 'tipo_pessoa_recusado',
      message: `A chave ${pix.chave} recusa Pix de pagadores ${payerType === 'PF' ? 'pessoa física (CPF)' : 'pessoa jurídica (CNPJ)'}.`,
    };
  }
  return undefined;
}
