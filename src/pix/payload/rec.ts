/**
 * The recurrence as the payer's institution sees it when it follows the recurrence location of a composite
 * QR code (ID 80): Bacen RecPayload, served at `GET /rec/{recUrlAccessToken}` and signed like the charge
 * payloads. And the other direction: the recurrence an immediate charge's payload names (journey 3).
 * How each case is answered is explained in docs/payload.md.
 */
import type { Sql } from '../../platform/db/database.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { RECEIVER_ISPB } from '../../platform/institution.ts';
import { recLocationAddress, findRecByLocationToken } from '../locrec/store.ts';
import { recReceiver } from '../rec/service.ts';
import { findRec, findRecByJourneyTxid } from '../rec/store.ts';

export const REC_PAYLOAD_NOT_FOUND = 'RecPayloadNaoEncontrado';
export const REC_PAYLOAD_INVALID = 'RecPayloadOperacaoInvalida';

/** Statuses after which a recurrence can no longer be approved: the standard lists them as RecPayloadOperacaoInvalida. */
const CLOSED = new Set(['REJEITADA', 'EXPIRADA', 'CANCELADA']);

/**
 * - unknown token, or a location serving no recurrence: 404 RecPayloadNaoEncontrado;
 * - a rejected, expired or cancelled recurrence: 400 RecPayloadOperacaoInvalida naming `recUrlAccessToken`
 *   (the standard's own violation for this endpoint);
 * - CRIADA or APROVADA: served; `atualizacao` tells the payer which.
 */
export async function recPayload(sql: Sql, token: string): Promise<Record<string, unknown>> {
  const location = await findRecByLocationToken(sql, token);
  const row = location?.id_rec ? await findRec(sql, location.account_id, location.id_rec) : undefined;
  if (!row)
    throw notFound('A recorrência em questão não foi encontrada para a location requisitada.', REC_PAYLOAD_NOT_FOUND);
  if (CLOSED.has(row.status))
    throw invalid(REC_PAYLOAD_INVALID, 'A recorrência encontra-se expirada, rejeitada ou cancelada.', [
      {
        property: 'recUrlAccessToken',
        reason: `O campo recUrlAccessToken referencia uma recorrência ${row.status.toLowerCase()}.`,
      },
    ]);
  const { vinculo, calendario, valor } = row.body;
  return {
    idRec: row.id_rec,
    vinculo,
    calendario,
    ...(valor && { valor }),
    recebedor: { ...(await recReceiver(sql, row)), ispbParticipante: RECEIVER_ISPB },
    politicaRetentativa: row.politica_retentativa,
    atualizacao: row.atualizacao,
  };
}

/**
 * What an immediate charge's payload says of the recurrence paired with it (journey 3): its id and the
 * location of its payload. The standard's CobPayload has no such field (the composite code's ID 80 is its
 * link); pixd adds `recorrencia` so a reader that follows only ID 26 (as the official SDK's does) still
 * finds the recurrence. Undefined for a charge no recurrence names.
 */
export async function journeyRecurrence(
  sql: Sql,
  accountId: number,
  txid: string,
  publicUrl: string,
): Promise<{ idRec: string; location?: string } | undefined> {
  const rec = await findRecByJourneyTxid(sql, accountId, txid);
  if (!rec) return undefined;
  return { idRec: rec.id_rec, ...(rec.loc_token && { location: recLocationAddress(publicUrl, rec.loc_token) }) };
}
