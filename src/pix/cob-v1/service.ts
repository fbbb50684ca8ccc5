/** `POST /v1/cob`: the immediate charge with the wrapper family's own refusals checked first. */
import type { Database } from '../../platform/db/database.ts';
import { ApiError } from '../../platform/errors.ts';
import type { Caller } from '../shared/caller.ts';
import type { CobCreate } from '../cob/schemas.ts';
import { createCob } from '../cob/service.ts';
import { txidTaken } from '../charges/store.ts';
import { isDocumentBlocked } from './store.ts';

export async function createCobV1(db: Database, caller: Caller, txid: string | undefined, body: CobCreate) {
  return db.tx(async (sql) => {
    const document = body.devedor?.cpf ?? body.devedor?.cnpj;
    if (document && (await isDocumentBlocked(sql, document))) {
      throw new ApiError(400, 'documento_bloqueado', 'O documento do devedor está bloqueado para novas cobranças.', [
        { property: 'devedor', reason: 'documento bloqueado.', value: document },
      ]);
    }
    if (txid && (await txidTaken(sql, caller.accountId, txid))) {
      throw new ApiError(409, 'txid_duplicado', `O txid ${txid} já foi utilizado.`, [
        { property: 'txid', reason: 'txid já utilizado.', value: txid },
      ]);
    }
    return createCob(sql, caller, txid, body);
  });
}
