/**
 * What an enrolment allows a payment: its amount (fixed, or within the range), its date (from the start and
 * today to the expiry) and its recurrence period (one live payment per period, counted from `dataInicio`).
 */
import { parseAmount, formatAmount } from '../../platform/money.ts';
import { toEpochDay } from '../../platform/calendar.ts';
import type { Interval } from '../shared.ts';
import type { EnrolmentBody } from '../enrolments/schemas.ts';

const MONTHS_PER_PERIOD: Record<Exclude<Interval, 'SEMANAL'>, number> = {
  MENSAL: 1,
  TRIMESTRAL: 3,
  SEMESTRAL: 6,
  ANUAL: 12,
};

/** Whole months from `start` to `date` (both YYYY-MM-DD), a month counting once its day is reached. */
function monthsBetween(start: string, date: string): number {
  const [y1, m1, d1] = start.split('-').map(Number);
  const [y2, m2, d2] = date.split('-').map(Number);
  return y2 * 12 + m2 - (y1 * 12 + m1) - (d2 < d1 ? 1 : 0);
}

/** The period a date falls in: 0 for the first (from `dataInicio`), 1 for the next, and so on. */
export function periodOf(intervalo: Interval, dataInicio: string, data: string): number {
  if (intervalo === 'SEMANAL') return Math.floor((toEpochDay(data) - toEpochDay(dataInicio)) / 7);
  return Math.floor(monthsBetween(dataInicio, data) / MONTHS_PER_PERIOD[intervalo]);
}

/** Why the amount is not allowed, or undefined. */
export function amountRefusal(body: EnrolmentBody, amountCents: number): string | undefined {
  const auto = body.assinatura.configuracao.automatico;
  if (auto.valorFixo !== undefined) {
    const fixed = parseAmount(auto.valorFixo);
    return amountCents === fixed ? undefined : `o valor da adesão é fixo: ${formatAmount(fixed)}.`;
  }
  if (auto.valorMinimo !== undefined && amountCents < parseAmount(auto.valorMinimo))
    return `abaixo do valor mínimo da adesão (${auto.valorMinimo}).`;
  if (auto.valorMaximo !== undefined && amountCents > parseAmount(auto.valorMaximo))
    return `acima do valor máximo da adesão (${auto.valorMaximo}).`;
  return undefined;
}

/**
 * Why the date is not allowed (given today's date on the account's clock), or undefined. The enrolment's own
 * first payment (`first`) may fall before `dataInicio`, as the enrolment itself set it.
 */
export function dateRefusal(body: EnrolmentBody, data: string, today: string, first = false): string | undefined {
  const { expiracao, configuracao } = body.assinatura;
  const { dataInicio } = configuracao.automatico;
  if (data < today) return `anterior a hoje (${today}).`;
  if (!first && data < dataInicio) return `anterior ao início da adesão (${dataInicio}).`;
  if (data > expiracao) return `posterior à expiração da adesão (${expiracao}).`;
  return undefined;
}
