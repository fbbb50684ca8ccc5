/**
 * Rules on a due charge that its schema cannot express (Bacen CobVOperacaoInvalida violations). Pure: the
 * key and the location are checked by the shared charge flow.
 */
import type { Violation } from '../../platform/errors.ts';
import { parseAmount } from '../../platform/money.ts';
import { devedorViolations } from '../shared/devedor.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import { dueAmountOn, lastPayableDate } from './amount.ts';
import type { CobVBody, CobVValor } from './schemas.ts';

export const ROOT = 'cobv';
const HUNDRED_PERCENT = parseAmount('100.00');

/** valorPerc in hundredths: cents for money, hundredths of a percent for percentages (same two-decimal format). */
const hundredths = parseAmount;

/** Desconto modalidades whose valorPerc is a percentage; the others are money. */
const PERCENT_DESCONTO = new Set([2, 5, 6]);

function calendarioViolations(body: CobVBody, createdAt: Date): Violation[] {
  const created = brasiliaDate(createdAt);
  if (body.calendario.dataDeVencimento >= created) return [];
  return [
    {
      property: `${ROOT}.calendario.dataDeVencimento`,
      reason: `a data de vencimento é anterior à data de criação da cobrança (${created}).`,
      value: body.calendario.dataDeVencimento,
    },
  ];
}

/** A deduction must stay below the original: under its amount as money, under 100% as a percentage. */
function tooLarge(valorPerc: string, percent: boolean, originalCents: number): boolean {
  return hundredths(valorPerc) >= (percent ? HUNDRED_PERCENT : originalCents);
}

function descontoViolations(
  desconto: NonNullable<CobVValor['desconto']>,
  dataDeVencimento: string,
  originalCents: number,
): Violation[] {
  const at = `${ROOT}.valor.desconto`;
  const out: Violation[] = [];
  const percent = PERCENT_DESCONTO.has(desconto.modalidade);
  const bound = percent ? 'maior ou igual a 100%' : 'maior ou igual ao valor original';
  if (desconto.modalidade <= 2) {
    if (desconto.valorPerc !== undefined)
      out.push({
        property: `${at}.valorPerc`,
        reason: `a modalidade ${desconto.modalidade} usa descontoDataFixa, não valorPerc.`,
      });
    if (!desconto.descontoDataFixa?.length)
      out.push({
        property: `${at}.descontoDataFixa`,
        reason: `a modalidade ${desconto.modalidade} exige descontoDataFixa.`,
      });
    const seen = new Set<string>();
    desconto.descontoDataFixa?.forEach((tier, i) => {
      if (tier.data > dataDeVencimento)
        out.push({
          property: `${at}.descontoDataFixa.${i}.data`,
          reason: 'a data do desconto é posterior à data de vencimento.',
          value: tier.data,
        });
      if (seen.has(tier.data))
        out.push({ property: `${at}.descontoDataFixa.${i}.data`, reason: 'data repetida.', value: tier.data });
      seen.add(tier.data);
      if (tooLarge(tier.valorPerc, percent, originalCents))
        out.push({
          property: `${at}.descontoDataFixa.${i}.valorPerc`,
          reason: `desconto ${bound}.`,
          value: tier.valorPerc,
        });
    });
    return out;
  }
  if (desconto.descontoDataFixa !== undefined)
    out.push({
      property: `${at}.descontoDataFixa`,
      reason: `a modalidade ${desconto.modalidade} usa valorPerc, não descontoDataFixa.`,
    });
  if (desconto.valorPerc === undefined)
    out.push({ property: `${at}.valorPerc`, reason: `a modalidade ${desconto.modalidade} exige valorPerc.` });
  else if (tooLarge(desconto.valorPerc, percent, originalCents))
    out.push({ property: `${at}.valorPerc`, reason: `desconto por dia ${bound}.`, value: desconto.valorPerc });
  return out;
}

function valorViolations(body: CobVBody): Violation[] {
  const { valor } = body;
  const originalCents = parseAmount(valor.original);
  if (originalCents === 0)
    return [
      { property: `${ROOT}.valor.original`, reason: 'o valor da cobrança não pode ser 0.00.', value: valor.original },
    ];
  const out: Violation[] = [];
  if (valor.abatimento && tooLarge(valor.abatimento.valorPerc, valor.abatimento.modalidade === 2, originalCents)) {
    out.push({
      property: `${ROOT}.valor.abatimento.valorPerc`,
      reason: 'abatimento maior ou igual ao valor original ou a 100%.',
      value: valor.abatimento.valorPerc,
    });
  }
  if (valor.desconto) out.push(...descontoViolations(valor.desconto, body.calendario.dataDeVencimento, originalCents));
  return out;
}

/**
 * The last payable date must be writable (year ≤ 9999) and the amount due on it, the largest the charge
 * can ask (juros only grow), must fit the Pix amount format: then the payment engine never meets either.
 */
function payabilityViolations(body: CobVBody): Violation[] {
  let last: string;
  try {
    last = lastPayableDate(body);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return [
      {
        property: `${ROOT}.calendario.validadeAposVencimento`,
        reason: 'a data limite de pagamento ultrapassa o ano 9999.',
        value: body.calendario.validadeAposVencimento,
      },
    ];
  }
  try {
    dueAmountOn(body, last);
    return [];
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return [
      {
        property: `${ROOT}.valor`,
        reason: `o valor devido em ${last} (multa e juros incluídos) excede o maior valor de um Pix.`,
      },
    ];
  }
}

export function cobvRules(body: CobVBody, createdAt: Date): Violation[] {
  const out = [...devedorViolations(body.devedor, ROOT, true), ...calendarioViolations(body, createdAt)];
  const valor = valorViolations(body);
  out.push(...valor);
  // The amount can only be computed on a well-formed valor.
  if (!valor.length) out.push(...payabilityViolations(body));
  return out;
}
