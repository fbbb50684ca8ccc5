/** Due charges (`cobv`): their rules and names on the shared charge flow. No HTTP here. */
import type { Sql } from '../../platform/db/database.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { applyRevision, createCharge, listChargePage, readCharge, type ChargeKind } from '../charges/lifecycle.ts';
import type { Caller } from '../shared/caller.ts';
import { accountRecebedor, type Recebedor } from '../shared/recebedor.ts';
import { ROOT, cobvRules } from './rules.ts';
import type { CobVBody, CobVCreate, CobVListQuery, CobVPatch, CobVView } from './schemas.ts';

export const COBV_INVALID = 'CobVOperacaoInvalida';
export const COBV_QUERY_INVALID = 'CobVConsultaInvalida';

export const COBV: ChargeKind<CobVBody> = {
  kind: 'cobv',
  root: ROOT,
  invalidName: COBV_INVALID,
  invalidDetail:
    'A requisição que busca alterar ou criar uma cobrança com vencimento não respeita o schema ou está semanticamente errada.',
  queryInvalidName: COBV_QUERY_INVALID,
  notFound: () => notFound('Cobrança com vencimento não encontrada para o txid informado.', 'CobVNaoEncontrada'),
  // Bacen lists an unknown revisao under CobVConsultaInvalida (a bad query), not as a missing charge.
  noRevision: (txid, revisao) =>
    invalid(COBV_QUERY_INVALID, `A cobrança ${txid} não possui a revisão ${revisao}.`, [
      { property: 'revisao', reason: 'revisão inexistente.', value: revisao },
    ]),
  rules: cobvRules,
};

/** The stored body: the request without loc, with validadeAposVencimento defaulted. */
export function normaliseCobV(input: CobVCreate): CobVBody {
  const { loc: _loc, calendario, ...rest } = input;
  return {
    ...rest,
    calendario: {
      dataDeVencimento: calendario.dataDeVencimento,
      validadeAposVencimento: calendario.validadeAposVencimento ?? LIMITS.cobvValidadeAposVencimentoDefaultDays,
    },
  };
}

/** Bacen CobVGerada and CobVCompleta require the receiver: the account holder, its address read now. */
async function withRecebedor<V>(sql: Sql, caller: Caller, view: V): Promise<V & { recebedor: Recebedor }> {
  return { ...view, recebedor: await accountRecebedor(sql, caller.accountId) };
}

export async function createCobV(sql: Sql, caller: Caller, txid: string, input: CobVCreate): Promise<CobVView> {
  return withRecebedor(sql, caller, await createCharge(sql, caller, COBV, txid, normaliseCobV(input), input.loc?.id));
}

export async function reviseCobV(sql: Sql, caller: Caller, txid: string, patch: CobVPatch): Promise<CobVView> {
  await applyRevision(sql, caller, COBV, txid, patch);
  return readCobV(sql, caller, txid);
}

export async function readCobV(sql: Sql, caller: Caller, txid: string, revisao?: number): Promise<CobVView> {
  return withRecebedor(sql, caller, await readCharge(sql, caller, COBV, txid, revisao));
}

/**
 * `loteCobVId` (Bacen) and `loteCobvId` (interface) name the caller's batch id. Only charges a batch
 * created are its charges (rule 6: its denied or waiting items are no charges), so the filter is on the
 * charge's batch; an unknown batch matches nothing.
 */
export async function listCobVs(sql: Sql, caller: Caller, q: CobVListQuery) {
  const { loteCobVId, loteCobvId, ...common } = q;
  if (loteCobVId !== undefined && loteCobvId !== undefined && loteCobVId !== loteCobvId) {
    throw invalid(COBV_QUERY_INVALID, 'loteCobVId e loteCobvId nomeiam lotes diferentes.', [
      { property: 'loteCobvId', reason: 'difere de loteCobVId.', value: loteCobvId },
    ]);
  }
  const batch = loteCobVId ?? loteCobvId;
  const batchFilter =
    batch === undefined
      ? undefined
      : {
          where: 'c.batch_id = (select b.id from cobv_batches b where b.account_id = c.account_id and b.public_id = ?)',
          params: [batch],
        };
  const page = await listChargePage(sql, caller, COBV, common, batchFilter);
  // Every charge of the page is the caller's: one receiver for all.
  const recebedor = await accountRecebedor(sql, caller.accountId);
  return { ...page, cobs: page.cobs.map((cob) => ({ ...cob, recebedor })) };
}
