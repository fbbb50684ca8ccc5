/**
 * A boleto's amounts (docs/billing.md, "Amounts after the due date"). The request's percentages become cents
 * once, when the boleto is issued, each rounded half-up from its exact value:
 *
 * - discount (always): currency, or percentage of items + shippings; the amount = gross − discount.
 * - fine: `fine` hundredths of a percent of the amount, once, from the day after the due date.
 * - interest: per calendar day late, `interest` thousandths of a percent of the amount (daily), or
 *   `value` hundredths of a percent per 30 days (monthly: the month's rate divided by 30), as cents per day.
 * - conditional discount: currency, or percentage of the amount, when paid on or before `until_date`.
 *
 * The amount due on a date is then the due Pix charge's rule applied to those cents (`dueAmountOn`, pix/cobv):
 * the boleto and its Pix QR ask for the same amount on every day by construction, and a due date on a weekend
 * or holiday moves to the next business day for both.
 */
import { LIMITS } from '../../platform/limits.ts';
import { divideHalfUp, formatAmount, percentHalfUp } from '../../platform/money.ts';
import { dueAmountOn, lastPayableDate, type DueAmount } from '../../pix/cobv/amount.ts';
import type { CobVBody } from '../../pix/cobv/schemas.ts';
import { billingError } from '../shared/errors.ts';
import type { DiscountInput } from '../shared/schemas.ts';
import type { BankingBilletInput } from './schemas.ts';

export interface BoletoTerms {
  fineCents: number;
  interestCentsPerDay: number;
  conditionalDiscount: { cents: number; untilDate: string } | null;
  daysToWriteOff: number;
  /** As asked (the views echo them): fine hundredths, interest and its type. */
  asked: { fine?: number; interest?: number; interestType?: 'daily' | 'monthly' };
}

const invalid = (property: string, why: string) =>
  billingError(400, 'validation_error', `payment.banking_billet.${property}: ${why}`);

/** The unconditional discount in cents (currency, or hundredths of a percent of the gross, half-up). */
export function discountCents(grossCents: number, discount: DiscountInput | undefined, property: string): number {
  if (!discount) return 0;
  const cents =
    discount.type === 'currency'
      ? discount.value
      : percentHalfUp(grossCents, Math.min(discount.value, LIMITS.billingPercentScale));
  if (cents >= grossCents) throw invalid(property, 'o desconto não pode igualar ou superar o total.');
  return cents;
}

/** The cents a boleto of `amountCents` due on `expireAt` is issued with. */
export function termsOf(
  input: Pick<BankingBilletInput, 'configurations' | 'conditional_discount'>,
  amountCents: number,
  expireAt: string,
): BoletoTerms {
  const config = input.configurations ?? {};
  const interest =
    typeof config.interest === 'number' ? { value: config.interest, type: 'daily' as const } : config.interest;
  if (interest?.type === 'daily' && interest.value > LIMITS.boletoDailyInterestMaxThousandths)
    throw invalid(
      'configurations.interest',
      `juros diários de no máximo ${LIMITS.boletoDailyInterestMaxThousandths} milésimos de %.`,
    );
  const interestCentsPerDay = !interest
    ? 0
    : interest.type === 'daily'
      ? divideHalfUp(amountCents * interest.value, 100_000)
      : divideHalfUp(amountCents * interest.value, 10_000 * 30);
  const conditional = input.conditional_discount;
  let conditionalDiscount: BoletoTerms['conditionalDiscount'] = null;
  if (conditional) {
    if (conditional.until_date > expireAt)
      throw invalid('conditional_discount.until_date', 'deve ser no máximo a data de vencimento.');
    const cents = discountCents(amountCents, conditional, 'conditional_discount');
    conditionalDiscount = { cents, untilDate: conditional.until_date };
  }
  return {
    fineCents: config.fine ? percentHalfUp(amountCents, config.fine) : 0,
    interestCentsPerDay,
    conditionalDiscount,
    daysToWriteOff: config.days_to_write_off ?? LIMITS.boletoDaysToWriteOffDefault,
    asked: { fine: config.fine, interest: interest?.value, interestType: interest?.type },
  };
}

/** The due Pix charge's `calendario` and `valor` of a boleto: what both its barcode and its QR are paid by. */
export function dueTerms(
  amountCents: number,
  dueDate: string,
  terms: BoletoTerms,
): Pick<CobVBody, 'calendario' | 'valor'> {
  const money = (cents: number) => ({ modalidade: 1, valorPerc: formatAmount(cents) });
  return {
    calendario: { dataDeVencimento: dueDate, validadeAposVencimento: terms.daysToWriteOff },
    valor: {
      original: formatAmount(amountCents),
      ...(terms.fineCents > 0 && { multa: money(terms.fineCents) }),
      ...(terms.interestCentsPerDay > 0 && { juros: money(terms.interestCentsPerDay) }),
      ...(terms.conditionalDiscount && {
        desconto: {
          modalidade: 1,
          descontoDataFixa: [
            { data: terms.conditionalDiscount.untilDate, valorPerc: formatAmount(terms.conditionalDiscount.cents) },
          ],
        },
      }),
    },
  };
}

type Dues = { amount_cents: number; due_date: string; terms: BoletoTerms };

/** The amount a boleto asks on a payment date (YYYY-MM-DD, Brasília), with its components. */
export function boletoAmountOn(boleto: Dues, paymentDate: string): DueAmount {
  return dueAmountOn(dueTerms(boleto.amount_cents, boleto.due_date, boleto.terms) as CobVBody, paymentDate);
}

/** The last day the boleto can be paid (its write-off date), moved off weekends like the due date. */
export function lastBoletoPayableDate(boleto: Dues): string {
  return lastPayableDate(dueTerms(boleto.amount_cents, boleto.due_date, boleto.terms) as CobVBody);
}
