/**
 * The amount a due charge asks for on a payment date (Bacen CobVValor modalities), and the last date it
 * can be paid. The payment engine and the JWS payload read charges through here. Rules, with examples, are
 * in docs/cobv.md; in short:
 *
 * - Due date: `dataDeVencimento`, moved to the next Monday when it falls on a weekend (Bacen
 *   CobDataDeVencimento: multa, juros, desconto and validadeAposVencimento all follow the move).
 * - Abatimento always; multa and juros only after the due date; desconto only up to it.
 * - Money is integer cents; percentages are exact fractions (BigInt). Each component is rounded once,
 *   half-up to the cent, from its exact value; juros are simple interest over all the days late.
 * - Desconto never exceeds what abatimento leaves of the original, so the components always add up to
 *   finalCents, which is never below 0.
 */
import { LIMITS } from '../../platform/limits.ts';
import { businessDaysIn, fromEpochDay, nextBusinessDay, toEpochDay } from '../../platform/calendar.ts';
import type { CobVBody, CobVValor } from './schemas.ts';

export interface DueAmount {
  originalCents: number;
  multaCents: number;
  jurosCents: number;
  abatimentoCents: number;
  descontoCents: number;
  finalCents: number;
}

type Modalidade = { modalidade: number; valorPerc: string };

/** The largest amount the Pix formats can write (\d{1,10}\.\d{2}). */
const MAX_CENTS = 10n ** BigInt(LIMITS.amountMaxIntegerDigits + 2) - 1n;

/**
 * Juros per modalidade: whether days late are business days, and the period the rate is given for in those
 * days (null: valorPerc is money per day). Months and years are commercial: 30 and 360 calendar days,
 * 21 and 252 business days, so a monthly rate and twelve times it yearly charge the same.
 */
const JUROS: Record<number, { businessDays: boolean; periodDays: bigint | null }> = {
  1: { businessDays: false, periodDays: null },
  2: { businessDays: false, periodDays: 1n },
  3: { businessDays: false, periodDays: 30n },
  4: { businessDays: false, periodDays: 360n },
  5: { businessDays: true, periodDays: null },
  6: { businessDays: true, periodDays: 1n },
  7: { businessDays: true, periodDays: 21n },
  8: { businessDays: true, periodDays: 252n },
};

/** Desconto per modalidade 3 to 6 (per day of anticipation): which days count, and money or percentage. */
const DESCONTO_POR_ANTECIPACAO: Record<number, { businessDays: boolean; percent: boolean }> = {
  3: { businessDays: false, percent: false },
  4: { businessDays: true, percent: false },
  5: { businessDays: false, percent: true },
  6: { businessDays: true, percent: true },
};

/** A non-negative decimal string as the exact fraction num/den. Accepts any number of decimals. */
function fraction(text: string): { num: bigint; den: bigint } {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`not a non-negative decimal: "${text}"`);
  const decimals = match[2] ?? '';
  return { num: BigInt(match[1] + decimals), den: 10n ** BigInt(decimals.length) };
}

/** num/den rounded half-up to an integer; both are non-negative here. */
function roundHalfUp(num: bigint, den: bigint): bigint {
  return (2n * num + den) / (2n * den);
}

/** `valorPerc` read as money, times `count` (days), in cents. */
function moneyCents(valorPerc: string, count = 1n): bigint {
  const { num, den } = fraction(valorPerc);
  return roundHalfUp(num * 100n * count, den);
}

/** `valorPerc` percent of `baseCents`, times `count` days over a rate period of `periodDays`, in cents. */
function percentCents(baseCents: bigint, valorPerc: string, count = 1n, periodDays = 1n): bigint {
  const { num, den } = fraction(valorPerc);
  return roundHalfUp(baseCents * num * count, den * 100n * periodDays);
}

/** Multa and abatimento: modalidade 1 a fixed value, 2 a percentage of the original. */
function fixedOrPercent(m: Modalidade, originalCents: bigint): bigint {
  if (m.modalidade === 1) return moneyCents(m.valorPerc);
  if (m.modalidade === 2) return percentCents(originalCents, m.valorPerc);
  throw new RangeError(`unknown modalidade ${m.modalidade}`);
}

function daysBetween(from: number, to: number, businessDays: boolean): bigint {
  return BigInt(businessDays ? businessDaysIn(from, to) : Math.max(0, to - from));
}

function jurosCents(juros: Modalidade, originalCents: bigint, due: number, pay: number): bigint {
  const rule = JUROS[juros.modalidade];
  if (!rule) throw new RangeError(`unknown juros modalidade ${juros.modalidade}`);
  const days = daysBetween(due, pay, rule.businessDays);
  return rule.periodDays === null
    ? moneyCents(juros.valorPerc, days)
    : percentCents(originalCents, juros.valorPerc, days, rule.periodDays);
}

function descontoCents(
  desconto: NonNullable<CobVValor['desconto']>,
  originalCents: bigint,
  due: number,
  pay: number,
): bigint {
  if (desconto.modalidade === 1 || desconto.modalidade === 2) {
    // The earliest tier whose date (moved off a weekend like the due date) the payment still meets.
    const tier = [...(desconto.descontoDataFixa ?? [])]
      .sort((a, b) => a.data.localeCompare(b.data))
      .find((t) => pay <= nextBusinessDay(toEpochDay(t.data)));
    if (!tier) return 0n;
    return desconto.modalidade === 1 ? moneyCents(tier.valorPerc) : percentCents(originalCents, tier.valorPerc);
  }
  const rule = DESCONTO_POR_ANTECIPACAO[desconto.modalidade];
  if (!rule || desconto.valorPerc === undefined)
    throw new RangeError(`desconto modalidade ${desconto.modalidade} without valorPerc`);
  const days = daysBetween(pay, due, rule.businessDays);
  return rule.percent ? percentCents(originalCents, desconto.valorPerc, days) : moneyCents(desconto.valorPerc, days);
}

/** dataDeVencimento, moved to the next Monday when it falls on a weekend. */
function effectiveDueDay(body: CobVBody): number {
  return nextBusinessDay(toEpochDay(body.calendario.dataDeVencimento));
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

function toCents(value: bigint, name: string): number {
  if (value > MAX_CENTS) throw new RangeError(`${name} of ${value} cents exceeds the largest Pix amount`);
  return Number(value);
}

/**
 * paymentDate is a calendar date YYYY-MM-DD in Brasília time (UTC-03:00).
 * Throws RangeError when a component does not fit the Pix amount format (refused when the charge is written,
 * see `payabilityViolations`) or when the body is not a valid due charge.
 */
export function dueAmountOn(body: CobVBody, paymentDate: string): DueAmount {
  const { valor } = body;
  const original = moneyCents(valor.original);
  const pay = toEpochDay(paymentDate);
  const due = effectiveDueDay(body);
  const late = pay > due;
  const abatimento = valor.abatimento ? fixedOrPercent(valor.abatimento, original) : 0n;
  const multa = late && valor.multa ? fixedOrPercent(valor.multa, original) : 0n;
  const juros = late && valor.juros ? jurosCents(valor.juros, original, due, pay) : 0n;
  const desconto =
    !late && valor.desconto
      ? min(descontoCents(valor.desconto, original, due, pay), max(0n, original - abatimento))
      : 0n;
  return {
    originalCents: toCents(original, 'original'),
    multaCents: toCents(multa, 'multa'),
    jurosCents: toCents(juros, 'juros'),
    abatimentoCents: toCents(abatimento, 'abatimento'),
    descontoCents: toCents(desconto, 'desconto'),
    finalCents: toCents(max(0n, original + multa + juros - abatimento - desconto), 'final'),
  };
}

/**
 * Last date on which the charge can be paid: dataDeVencimento + validadeAposVencimento days.
 * Following Bacen CobDataDeVencimento, both the due date and that last day move to the next Monday
 * when they fall on a weekend (e.g. due Tue 2020-10-20 + 4 days = Sat 24 → Mon 2020-10-26).
 */
export function lastPayableDate(body: CobVBody): string {
  return fromEpochDay(nextBusinessDay(effectiveDueDay(body) + body.calendario.validadeAposVencimento));
}
