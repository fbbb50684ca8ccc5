/**
 * `dadosQR` of GET /rec/{idRec}: the composite QR code ("QR Composto") of the journey the query asks for, as
 * the standard's table says: no txid, journey 2 (the recurrence alone); an immediate charge's txid, journey 3
 * (pay it and approve the recurrence); a due charge's txid, journey 4. Given only when every location the
 * code needs exists: the recurrence's, and the charge's for journeys 3 and 4.
 */
import { findAccount } from '../../accounts/store.ts';
import type { Sql } from '../../platform/db/database.ts';
import { compositeBrCode } from '../../platform/brcode.ts';
import type { ChargeRow } from '../charges/store.ts';
import { locationAddress } from '../loc/store.ts';
import { findRecLocation, recLocationAddress } from '../locrec/store.ts';
import type { RecCompleta } from './schemas.ts';
import type { RecRow } from './store.ts';

export async function recQrData(
  sql: Sql,
  row: RecRow,
  charge: ChargeRow<unknown> | undefined,
  publicUrl: string,
): Promise<RecCompleta['dadosQR']> {
  const location = row.location_id ? await findRecLocation(sql, row.account_id, row.location_id) : undefined;
  if (!location) return undefined;
  const recurrenceLocationUrl = recLocationAddress(publicUrl, location.token);
  if (charge) {
    if (!charge.loc_token) return undefined;
    return {
      jornada: charge.kind === 'cob' ? 'JORNADA_3' : 'JORNADA_4',
      pixCopiaECola: compositeBrCode({
        recurrenceLocationUrl,
        chargeLocationUrl: locationAddress(publicUrl, charge.loc_token, charge.kind),
        merchantName: charge.account_nome,
        merchantCity: charge.account_cidade,
      }),
    };
  }
  const account = await findAccount(sql, row.account_id);
  if (!account) return undefined;
  return {
    jornada: 'JORNADA_2',
    pixCopiaECola: compositeBrCode({ recurrenceLocationUrl, merchantName: account.nome, merchantCity: account.cidade }),
  };
}
