/**
 * Boletos (docs/billing.md, "Boletos"), after issue.ts: their life (new due date, cancel, settle by hand, balance
 * sheet) and their payment by
 * barcode, which the sandbox payer and the bill-payment API's "on us" payments call (`findByBarcode`,
 * `payBoleto`). The charge is paid at most once whichever way: the Pix engine pays the QR only while its Pix
 * charge is ATIVA, and every other way withdraws that Pix charge under its lock first. No HTTP here.
 */
import type { Sql } from '../../platform/db/database.ts';
import { brasiliaDate, brasiliaDayStart, fromEpochDay, nextBusinessDay, toEpochDay } from '../../platform/calendar.ts';
import { bankBarcodeToLine } from '../../platform/febraban.ts';
import { findAccount } from '../../accounts/store.ts';
import { billingError, chargeNotFound } from '../shared/errors.ts';
import type { BillingCaller } from '../shared/caller.ts';
import { findCharge, lockCharge, type ChargeRow } from '../charges/store.ts';
import { requireStatus, transition } from '../charges/transitions.ts';
import type { BalanceSheetInput } from './schemas.ts';
import { boletoAmountOn, lastBoletoPayableDate } from './terms.ts';
import { barcodeOf } from './barcode.ts';
import { checkDueDate, issuePixCharge, payerDocument, payerName } from './issue.ts';
import { BOLETO_TOPICS, enqueueBoletoJob, expiryAt } from './jobs.ts';
import type { Mailer } from '../mail/service.ts';
import { mailBoletos } from './mail.ts';
import { boletoPdf } from './pdf.ts';
import { findBoleto, lockPixChargeOf, updateBoleto, withdrawPixCharge, type BoletoRow } from './store.ts';

const invalid = (property: string, why: string) =>
  billingError(400, 'validation_error', `payment.banking_billet.${property}: ${why}`);

/** The boleto charge of the caller, Pix charge then charge locked; 404 unless it is the caller's boleto. */
export async function lockOwnBoleto(
  sql: Sql,
  accountId: number,
  id: number,
): Promise<{ charge: ChargeRow; boleto: BoletoRow }> {
  await lockPixChargeOf(sql, id);
  const charge = await lockCharge(sql, { id, accountId });
  if (!charge) throw chargeNotFound();
  const boleto = await findBoleto(sql, { chargeId: id });
  if (!boleto) throw billingError(400, 'not_banking_billet', `A cobrança ${id} não é um boleto.`);
  return { charge, boleto };
}

/** A payment by barcode registered and waiting for compensation: the charge is no longer the integrator's to change. */
function refuseIfBarcodePaid(boleto: BoletoRow, action: string): void {
  if (boleto.barcode_paid_at)
    throw billingError(
      400,
      'invalid_charge_status',
      `${action}: o boleto já foi pago e aguarda a compensação (${brasiliaDate(boleto.credit_at!)}).`,
    );
}

/** PUT /v1/charge/:id/billet: a new due date (after today); a new barcode and a new Pix QR, the old one withdrawn. */
export async function updateBillet(sql: Sql, caller: BillingCaller, id: number, expireAt: string): Promise<void> {
  const { charge, boleto } = await lockOwnBoleto(sql, caller.accountId, id);
  requireStatus(charge, ['waiting', 'unpaid'], 'Alterar o vencimento');
  refuseIfBarcodePaid(boleto, 'Alterar o vencimento');
  if (expireAt <= brasiliaDate(caller.now))
    throw billingError(400, 'validation_error', 'expire_at: a nova data de vencimento deve ser posterior a hoje.');
  const terms = { ...boleto.terms };
  if (terms.conditionalDiscount && terms.conditionalDiscount.untilDate > expireAt) terms.conditionalDiscount = null;
  if (boleto.pix_charge_id)
    await withdrawPixCharge(sql, boleto.pix_charge_id, 'REMOVIDA_PELO_USUARIO_RECEBEDOR', caller.now);
  const renewed = { ...boleto, due_date: expireAt, terms };
  const pix = boleto.pix_charge_id ? await issuePixCharge(sql, caller, renewed) : null;
  await updateBoleto(sql, id, {
    due_date: expireAt,
    barcode: barcodeOf(charge.account_id, charge.id, expireAt, boleto.amount_cents),
    pix_charge_id: pix?.id ?? null,
    pix_txid: pix?.txid ?? null,
    pix_qrcode: pix?.qrcode ?? null,
    terms,
  });
  if (charge.status === 'unpaid')
    await transition(sql, charge, 'unpaid', 'waiting', caller.now, { message: `Novo vencimento: ${expireAt}.` });
  await enqueueBoletoJob(sql, BOLETO_TOPICS.expire, charge, expiryAt(expireAt), caller.now);
}

/** Cancel a boleto (waiting or unpaid, nothing paid by barcode): its Pix QR is withdrawn with it. */
export async function cancelBoleto(sql: Sql, charge: ChargeRow, boleto: BoletoRow, now: Date): Promise<void> {
  requireStatus(charge, ['new', 'waiting', 'unpaid'], 'O cancelamento');
  refuseIfBarcodePaid(boleto, 'O cancelamento');
  if (boleto.pix_charge_id) await withdrawPixCharge(sql, boleto.pix_charge_id, 'REMOVIDA_PELO_USUARIO_RECEBEDOR', now);
  await transition(sql, charge, charge.status, 'canceled', now);
}

/** PUT /v1/charge/:id/settle: marked paid by hand (no money moves through pixd); the Pix QR is withdrawn. */
export async function settleBoleto(sql: Sql, charge: ChargeRow, boleto: BoletoRow, now: Date): Promise<void> {
  requireStatus(charge, ['waiting', 'unpaid'], 'A baixa manual');
  refuseIfBarcodePaid(boleto, 'A baixa manual');
  if (boleto.pix_charge_id) await withdrawPixCharge(sql, boleto.pix_charge_id, 'REMOVIDA_PELO_USUARIO_RECEBEDOR', now);
  await transition(sql, charge, charge.status, 'settled', now, { changes: { paid_at: now } });
}

/** POST /v1/charge/:id/balance-sheet: a boleto still waiting prints the table(s) on a page of its PDF. */
export async function defineBalanceSheet(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  sheet: BalanceSheetInput,
): Promise<void> {
  const { charge } = await lockOwnBoleto(sql, caller.accountId, id);
  requireStatus(charge, ['waiting'], 'O boleto balancete');
  await updateBoleto(sql, id, { balance_sheet: sheet });
}

// --- Paying a boleto by its barcode (the sandbox payer, and the bill-payment API "on us") ----------------------

/** Why a boleto cannot be paid by barcode: `code` is stable for callers to map onto their own errors. */
export class BoletoPaymentRefused extends Error {
  constructor(
    readonly code: 'boleto_inexistente' | 'boleto_pago' | 'boleto_baixado' | 'valor_divergente',
    message: string,
  ) {
    super(message);
  }
}

export interface BoletoForPayment {
  chargeId: number;
  accountId: number;
  barcode: string;
  linhaDigitavel: string;
  dueDate: string;
  /** The amount due on `date` (fine, interest and discounts applied) and its components. */
  amountCents: number;
  components: { original: number; multa: number; juros: number; desconto: number };
  beneficiary: { nome: string; documento: string };
  payer: { nome: string; documento: string };
  /** Payable now (waiting or unpaid, not paid by barcode or Pix, before its write-off date). */
  payable: boolean;
  status: string;
}

/**
 * A boleto issued by pixd, by its 44-digit barcode, and what paying it on `date` (YYYY-MM-DD, Brasília; default the
 * boleto owner's today is the caller's to pass) asks. Undefined: not a pixd boleto.
 */
export async function findByBarcode(sql: Sql, barcode44: string, date: string): Promise<BoletoForPayment | undefined> {
  const boleto = await findBoleto(sql, { barcode: barcode44 });
  if (!boleto) return undefined;
  const [charge, owner] = await Promise.all([
    findCharge(sql, { id: Number(boleto.charge_id) }),
    findAccount(sql, Number(boleto.account_id)),
  ]);
  const due = boletoAmountOn(boleto, date);
  return {
    chargeId: Number(boleto.charge_id),
    accountId: Number(boleto.account_id),
    barcode: boleto.barcode,
    linhaDigitavel: bankBarcodeToLine(boleto.barcode),
    dueDate: boleto.due_date,
    amountCents: due.finalCents,
    components: {
      original: due.originalCents,
      multa: due.multaCents,
      juros: due.jurosCents,
      desconto: due.descontoCents,
    },
    beneficiary: { nome: owner!.nome, documento: owner!.documento },
    payer: { nome: payerName(boleto.customer), documento: payerDocument(boleto.customer) },
    payable:
      ['waiting', 'unpaid'].includes(charge!.status) &&
      !boleto.barcode_paid_at &&
      date <= lastBoletoPayableDate(boleto),
    status: charge!.status,
  };
}

/**
 * Pays a pixd boleto by barcode, at most once: the Pix QR is withdrawn under its lock (a Pix racing it is refused,
 * and one that came first makes this refuse `boleto_pago`), the payment is registered, and the amount is credited
 * to the boleto's owner from `external:boleto` on the next business day after `paidAt` (the owner's clock), when
 * the charge becomes `paid` and is notified. The money is the caller's to have taken: a payer paying from a pixd
 * balance moves it into `external:boleto` in the same transaction; the sandbox payer is outside pixd.
 * `amountCents` must be the amount due on `paidAt`'s Brasília date. Returns when the credit happens.
 */
export async function payBoleto(
  sql: Sql,
  ctx: { now: Date },
  p: { chargeId: number; amountCents: number; paidAt: Date; payer: { nome: string; cpf?: string; cnpj?: string } },
): Promise<{ creditAt: Date }> {
  await lockPixChargeOf(sql, p.chargeId);
  const charge = await lockCharge(sql, { id: p.chargeId });
  const boleto = charge && (await findBoleto(sql, { chargeId: p.chargeId }));
  if (!charge || !boleto) throw new BoletoPaymentRefused('boleto_inexistente', 'Boleto não encontrado.');
  if (boleto.barcode_paid_at || ['paid', 'settled'].includes(charge.status))
    throw new BoletoPaymentRefused('boleto_pago', 'O boleto já foi pago.');
  const date = brasiliaDate(p.paidAt);
  if (!['waiting', 'unpaid'].includes(charge.status) || date > lastBoletoPayableDate(boleto))
    throw new BoletoPaymentRefused('boleto_baixado', `O boleto não pode ser pago (${charge.status}).`);
  const due = boletoAmountOn(boleto, date).finalCents;
  if (p.amountCents !== due)
    throw new BoletoPaymentRefused('valor_divergente', `O valor devido em ${date} é ${due} centavos.`);
  if (boleto.pix_charge_id) await withdrawPixCharge(sql, boleto.pix_charge_id, 'REMOVIDA_PELO_PSP', ctx.now);
  const creditAt = brasiliaDayStart(fromEpochDay(nextBusinessDay(toEpochDay(date) + 1)));
  await updateBoleto(sql, charge.id, {
    barcode_paid_at: p.paidAt,
    barcode_paid_cents: p.amountCents,
    barcode_payer: p.payer,
    credit_at: creditAt,
  });
  await enqueueBoletoJob(sql, BOLETO_TOPICS.credit, charge, creditAt, ctx.now);
  return { creditAt };
}

/** POST /v1/charge/:id/billet/resend: the boleto e-mailed (the mail outbox; refused where no mail is configured). */
export async function resendBillet(
  sql: Sql,
  caller: BillingCaller,
  mailer: Mailer,
  id: number,
  email: string,
): Promise<void> {
  const { charge, boleto } = await lockOwnBoleto(sql, caller.accountId, id);
  requireStatus(charge, ['waiting', 'unpaid'], 'O reenvio do boleto');
  await mailBoletos(sql, caller, mailer, email, [boleto], `charge:${id}`);
}

/** The PDF of a boleto by its link token (the page a payer opens: no token asked), or undefined. */
export async function boletoPdfByLink(sql: Sql, linkToken: string): Promise<Uint8Array | undefined> {
  const boleto = await findBoleto(sql, { linkToken });
  if (!boleto) return undefined;
  return boletoPdf([boleto], (await findAccount(sql, Number(boleto.account_id)))!);
}
