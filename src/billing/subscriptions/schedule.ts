/** When a subscription's parcels fall and what a renewal charges: shared by the one-by-one and the batch path. */
import { fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import { LIMITS } from '../../platform/limits.ts';
import { grossTotal } from '../charges/payment.ts';
import type { CardPaymentRecord } from '../charges/store.ts';
import type { PlanRow } from '../plans/store.ts';
import type { SubscriptionRow } from './store.ts';

/** `date` plus `months` calendar months, the day clamped to the month's last (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(d, daysInMonth)).padStart(2, '0')}`;
}

/** The date of parcel `parcel` (1 = the first execution). */
export const parcelDate = (s: Pick<SubscriptionRow, 'first_execution'>, plan: PlanRow, parcel: number) =>
  addMonths(s.first_execution!, plan.interval_months * (parcel - 1));

/** The day (account's clock) the renewal of a parcel due on `date` runs: a boleto's is issued its lead days ahead. */
export const renewalDay = (subscription: Pick<SubscriptionRow, 'payment'>, date: string): string =>
  subscription.payment?.method === 'banking_billet'
    ? fromEpochDay(toEpochDay(date) - LIMITS.billingSubscriptionBilletLeadDays)
    : date;

/** Parcel `parcel`'s date and the day its renewal runs; null when the plan has no more. */
export function nextRenewal(
  subscription: Pick<SubscriptionRow, 'first_execution' | 'payment'>,
  plan: PlanRow,
  parcel: number,
): { date: string; day: string } | null {
  if (plan.repeats !== null && parcel > plan.repeats) return null;
  const date = parcelDate(subscription, plan, parcel);
  return { date, day: renewalDay(subscription, date) };
}

/** What a renewal charges the stored card: one installment of the total, the first charge's discount if it still fits. */
export function storedCardTerms(subscription: Pick<SubscriptionRow, 'payment' | 'items' | 'shippings'>) {
  const stored = subscription.payment as CardPaymentRecord;
  const gross = grossTotal(subscription);
  const discount = stored.discount_cents < gross ? stored.discount_cents : 0;
  const payment: CardPaymentRecord = {
    ...stored,
    installments: 1,
    installment_value: gross - discount,
    discount_cents: discount,
  };
  return { payment, totalCents: gross - discount };
}

export const renewalMessage = (parcel: number, chargeId: number) => `Cobrança ${parcel} criada (cobrança ${chargeId}).`;
