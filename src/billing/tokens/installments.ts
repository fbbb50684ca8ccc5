/**
 * The interest table (spec: installments {rate, name, installments[]}). Installment 1 is interest-free; n > 1
 * adds `billingInstallmentInterestBasisPoints` per month of the total (simple interest), and each installment
 * is that sum divided by n, half-up to the cent. Integer arithmetic only.
 */
import { LIMITS } from '../../platform/limits.ts';
import { divideHalfUp, percentHalfUp } from '../../platform/money.ts';
import { formatBrl } from '../shared/money.ts';
import type { Brand } from './brands.ts';

export interface Installment {
  installment: number;
  has_interest: boolean;
  value: number;
  currency: string;
  interest_percentage: number;
}

export function installmentValue(totalCents: number, installment: number): number {
  if (installment === 1) return totalCents;
  const withInterest =
    totalCents + percentHalfUp(totalCents, LIMITS.billingInstallmentInterestBasisPoints * installment);
  return divideHalfUp(withInterest, installment);
}

export function installmentTable(
  brand: Brand,
  totalCents: number,
): { rate: number; name: string; installments: Installment[] } {
  const installments = Array.from({ length: LIMITS.billingInstallmentsMax }, (_, i) => {
    const installment = i + 1;
    const value = installmentValue(totalCents, installment);
    return {
      installment,
      has_interest: installment > 1,
      value,
      currency: formatBrl(value),
      interest_percentage: installment > 1 ? LIMITS.billingInstallmentInterestBasisPoints : 0,
    };
  });
  return { rate: 0, name: brand, installments };
}
