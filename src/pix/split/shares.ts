/**
 * How a received amount is divided between the receiver (position 0, `minhaParte`) and the beneficiaries
 * (positions 1.., `repasses` in the order given). Integer arithmetic only, no I/O: the payment hook and
 * the property tests call the same functions.
 *
 * porcentagem: share i is exactly amount × p_i / 100 %, rarely a whole number of cents. Rounding is the
 * largest-remainder method (`allocateByPercent`, src/platform/money.ts): floors first, the cents left over one
 * each to the largest discarded fractions, ties to the lower position, so the receiver first, then the
 * beneficiaries in order. Each share is then within one cent of its exact value and the shares add up exactly
 * to the amount.
 *
 * fixo: each beneficiary gets its amount; the receiver gets the rest, which may not fall below its own
 * `minhaParte` amount.
 */
import { LIMITS } from '../../platform/limits.ts';
import { allocateByPercent, assertCents } from '../../platform/money.ts';

export type ShareTipo = 'porcentagem' | 'fixo';

/** The shares a configuration revision names: hundredths of a percent or cents, per `tipo`. */
export interface ShareSpec {
  tipo: ShareTipo;
  /** Position 0 is the receiver, then the beneficiaries. */
  valoresHundredths: readonly number[];
}

/** Fixed shares ask for more than the amount received; the payment cannot be divided as configured. */
export class SplitExceedsAmount extends Error {
  constructor(
    readonly amountCents: number,
    readonly fixedTotalCents: number,
  ) {
    super(`fixed shares total ${fixedTotalCents} cents, above the ${amountCents} cents received`);
  }
}

/** A division that breaks its own contract: a bug, never a client error. */
export class SplitInvariantError extends Error {}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** The least amount a specification can divide: the fixed shares' total, or 0 for percentages. */
export function minimumDivisibleCents(spec: ShareSpec): number {
  return spec.tipo === 'fixo' ? sum(spec.valoresHundredths) : 0;
}

export function percentShares(amountCents: number, percentHundredths: readonly number[]): number[] {
  if (sum(percentHundredths) !== LIMITS.splitPercentTotalHundredths)
    throw new SplitInvariantError(`percentages add up to ${sum(percentHundredths)} hundredths, not 100 %`);
  return allocateByPercent(amountCents, percentHundredths);
}

export function fixedShares(amountCents: number, valoresCents: readonly number[]): number[] {
  const fixedTotalCents = sum(valoresCents);
  if (fixedTotalCents > amountCents) throw new SplitExceedsAmount(amountCents, fixedTotalCents);
  const repasses = valoresCents.slice(1);
  return [amountCents - sum(repasses), ...repasses];
}

/** Divides `amountCents` per `spec` and checks the result before anyone posts it. */
export function divide(amountCents: number, spec: ShareSpec): number[] {
  assertCents(amountCents);
  const shares =
    spec.tipo === 'porcentagem'
      ? percentShares(amountCents, spec.valoresHundredths)
      : fixedShares(amountCents, spec.valoresHundredths);
  assertDivision(amountCents, spec, shares);
  return shares;
}

/** The contract of every division: one share per position, none negative, adding up exactly to the amount. */
export function assertDivision(amountCents: number, spec: ShareSpec, shares: readonly number[]): void {
  if (shares.length !== spec.valoresHundredths.length)
    throw new SplitInvariantError(`${shares.length} shares for ${spec.valoresHundredths.length} positions`);
  if (shares.some((s) => !Number.isSafeInteger(s) || s < 0))
    throw new SplitInvariantError(`negative or fractional share in ${shares.join(',')}`);
  if (sum(shares) !== amountCents)
    throw new SplitInvariantError(`shares add up to ${sum(shares)} cents, not the ${amountCents} received`);
  if (spec.tipo === 'fixo' && shares[0] < spec.valoresHundredths[0])
    throw new SplitInvariantError('the receiver got less than its fixed share');
}
