/** Immediate charges (`cob`): their rules and names on the shared charge flow. No HTTP here. */
import type { Sql } from '../../platform/db/database.ts';
import { notFound, type Violation } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { omit } from '../../platform/objects.ts';
import { parseAmount } from '../../platform/money.ts';
import { newTxid } from '../../platform/ids.ts';
import { devedorViolations } from '../shared/devedor.ts';
import { applyRevision, createCharge, listChargePage, readCharge, type ChargeKind } from '../charges/lifecycle.ts';
import type { Caller } from '../shared/caller.ts';
import type { CobBody, CobCreate, CobListQuery, CobPatch, CobView } from './schemas.ts';

export const COB_INVALID = 'CobOperacaoInvalida';

function rules(body: CobBody): Violation[] {
  const violations = devedorViolations(body.devedor, 'cob', false);
  // A zero amount only makes sense when the payer chooses the amount.
  if (parseAmount(body.valor.original) === 0 && body.valor.modalidadeAlteracao !== 1) {
    violations.push({
      property: 'cob.valor.original',
      reason: 'o valor da cobrança não pode ser 0.00.',
      value: body.valor.original,
    });
  }
  return violations;
}

export const COB: ChargeKind<CobBody> = {
  kind: 'cob',
  root: 'cob',
  invalidName: COB_INVALID,
  invalidDetail:
    'A requisição que busca alterar ou criar uma cobrança para pagamento imediato não respeita o schema ou está semanticamente errada.',
  queryInvalidName: 'CobConsultaInvalida',
  notFound: () => notFound('Cobrança não encontrada para o txid informado.', 'CobNaoEncontrado'),
  noRevision: (txid, revisao) => notFound(`A cobrança ${txid} não possui a revisão ${revisao}.`, 'CobNaoEncontrado'),
  rules,
};

function normalise(input: CobCreate): CobBody {
  const body = omit(input, 'loc') as CobBody;
  body.calendario = { expiracao: input.calendario?.expiracao ?? LIMITS.cobExpiracaoDefaultSeconds };
  return body;
}

export async function createCob(
  sql: Sql,
  caller: Caller,
  txid: string | undefined,
  input: CobCreate,
): Promise<CobView> {
  const chosenTxid = txid ?? newTxid();
  return createCharge(sql, caller, COB, chosenTxid, normalise(input), input.loc?.id);
}

export async function reviseCob(sql: Sql, caller: Caller, txid: string, patch: CobPatch): Promise<CobView> {
  await applyRevision(sql, caller, COB, txid, patch);
  return readCob(sql, caller, txid);
}

export function readCob(sql: Sql, caller: Caller, txid: string, revisao?: number): Promise<CobView> {
  return readCharge(sql, caller, COB, txid, revisao);
}

export function listCobs(sql: Sql, caller: Caller, q: CobListQuery) {
  return listChargePage(sql, caller, COB, q);
}
