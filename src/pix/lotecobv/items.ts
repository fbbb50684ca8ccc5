/**
 * What the batch job decides for one item, before anything is written: its schema (the due-charge schemas
 * plus txid), then the due-charge rules through the shared charge flow. A refusal is the same
 * CobVOperacaoInvalida a single PUT/PATCH /v2/cobv/:txid would have answered, kept as the item's problem.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ValidateFunction } from 'ajv';
import { ApiError, invalid, toApiError, type Violation } from '../../platform/errors.ts';
import { requestAjv } from '../../platform/validators.ts';
import { assertRevisable, revisedState } from '../charges/lifecycle.ts';
import type { ChargeRow } from '../charges/store.ts';
import { COBV, COBV_INVALID, normaliseCobV } from '../cobv/service.ts';
import type { CobVBody } from '../cobv/schemas.ts';
import { ItemCreate, ItemPatch } from './schemas.ts';
import type { PendingItemRow } from './store.ts';

// The service's own body validator (strict, every error reported).
const ajv = requestAjv('body');
const checkCreate = ajv.compile<ItemCreate>(ItemCreate);
const checkPatch = ajv.compile<ItemPatch>(ItemPatch);

/** Schema failures named from `cobv.` as PUT /v2/cobv/:txid names them (the same mapping). */
function parse<T>(check: ValidateFunction<T>, value: unknown): T {
  if (check(value)) return value;
  throw toApiError({ validation: check.errors, validationContext: 'body' }, 'problem', {
    invalidRequest: COBV_INVALID,
    propertyRoot: COBV.root,
  });
}

export type Plan =
  | { kind: 'create'; item: PendingItemRow; body: CobVBody; locId?: number }
  | {
      kind: 'revise';
      item: PendingItemRow;
      charge: ChargeRow<CobVBody>;
      body: CobVBody;
      status: string;
      locId?: number;
    }
  /** A PUT that resends what the charge already is: nothing to write, no new revision. */
  | { kind: 'keep'; item: PendingItemRow }
  | { kind: 'deny'; item: PendingItemRow; error: ApiError };

export interface PlanContext {
  now: Date;
  /** Key violations of a chave (memoised by the caller: a batch usually has one key). */
  keyViolations(chave: string): Promise<Violation[]>;
}

async function assertBody(ctx: PlanContext, body: CobVBody, createdAt: Date): Promise<void> {
  const violations = [...COBV.rules(body, createdAt), ...(await ctx.keyViolations(body.chave))];
  if (violations.length) throw invalid(COBV.invalidName, COBV.invalidDetail, violations);
}

async function decide(item: PendingItemRow, charge: ChargeRow<CobVBody> | undefined, ctx: PlanContext): Promise<Plan> {
  if (item.pending_op === 'create') {
    const { txid: _txid, ...input } = parse(checkCreate, item.request);
    const body = normaliseCobV(input);
    await assertBody(ctx, body, ctx.now);
    return { kind: 'create', item, body, locId: input.loc?.id };
  }
  // replace and revise act on the charge the item created; the request rules only allow them then.
  if (!charge) throw COBV.notFound(item.txid);
  if (item.pending_op === 'replace') {
    const { txid: _txid, ...input } = parse(checkCreate, item.request);
    const body = normaliseCobV(input);
    const locId = input.loc?.id;
    if (isDeepStrictEqual(body, charge.body) && (locId === undefined || locId === charge.location_id))
      return { kind: 'keep', item };
    assertRevisable(COBV, charge);
    await assertBody(ctx, body, charge.created_at);
    return { kind: 'revise', item, charge, body, status: 'ATIVA', locId };
  }
  const { txid: _txid, ...patch } = parse(checkPatch, item.patch);
  assertRevisable(COBV, charge);
  const next = revisedState(COBV, charge.body, patch);
  if (next.check) await assertBody(ctx, next.body, charge.created_at);
  return { kind: 'revise', item, charge, body: next.body, status: next.status, locId: next.locId };
}

/** The plan for one waiting item; a refusal becomes a `deny` plan, anything else unexpected is thrown. */
export async function planItem(
  item: PendingItemRow,
  charge: ChargeRow<CobVBody> | undefined,
  ctx: PlanContext,
): Promise<Plan> {
  try {
    return await decide(item, charge, ctx);
  } catch (error) {
    if (error instanceof ApiError) return { kind: 'deny', item, error };
    throw error;
  }
}
