/**
 * Issuing a boleto on a charge (new → waiting): the payer checked, the amount and terms in cents, the due Pix
 * charge printed as its QR, the barcode, and the unpaid check queued for the day after the due date.
 */
import { newPageToken } from '../shared/url-tokens.ts';
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { isValidCnpj, isValidCpf } from '../../platform/documents.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import { BANK_AMOUNT_MAX_CENTS } from '../../platform/febraban.ts';
import { randomAlphanumeric } from '../../platform/ids.ts';
import { createCobV } from '../../pix/cobv/service.ts';
import { billingError } from '../shared/errors.ts';
import type { BillingCaller } from '../shared/caller.ts';
import type { CustomerInput } from '../shared/schemas.ts';
import type { BoletoPaymentRecord, ChargeRow } from '../charges/store.ts';
import { requireStatus, transition } from '../charges/transitions.ts';
import type { BankingBilletInput } from './schemas.ts';
import { discountCents, dueTerms, termsOf } from './terms.ts';
import { barcodeOf } from './barcode.ts';
import { BOLETO_TOPICS, enqueueBoletoJob, expiryAt } from './jobs.ts';
import { boletoPixKey, insertBoleto, pixChargeIdOf, type BoletoRow } from './store.ts';

const invalid = (property: string, why: string) =>
  billingError(400, 'validation_error', `payment.banking_billet.${property}: ${why}`);

/** A company (juridical_person: valid CNPJ) or a person (name and a valid CPF). */
function checkCustomer(customer: CustomerInput): boolean {
  if (customer.juridical_person) {
    if (!isValidCnpj(customer.juridical_person.cnpj)) throw invalid('customer.juridical_person.cnpj', 'CNPJ inválido.');
    return true;
  }
  if (!customer.name) throw invalid('customer.name', 'propriedade obrigatória para pessoa física.');
  if (!customer.cpf) throw invalid('customer.cpf', 'propriedade obrigatória para pessoa física.');
  if (!isValidCpf(customer.cpf)) throw invalid('customer.cpf', 'CPF inválido.');
  return false;
}

export const payerName = (customer: CustomerInput) => customer.juridical_person?.corporate_name ?? customer.name ?? '';
export const payerDocument = (customer: CustomerInput) => customer.juridical_person?.cnpj ?? customer.cpf ?? '';

export /** The due Pix charge a boleto prints as its QR (on the account's oldest key; none without a key). */
async function issuePixCharge(
  sql: Sql,
  caller: BillingCaller,
  boleto: Pick<BoletoRow, 'account_id' | 'amount_cents' | 'due_date' | 'terms' | 'customer' | 'message'>,
): Promise<{ id: number; txid: string; qrcode: string } | null> {
  const chave = await boletoPixKey(sql, caller.accountId);
  if (!chave) return null;
  if (!caller.publicUrl) throw new Error('issuing a boleto needs the public URL (its QR names a location)');
  const txid = `bol${randomAlphanumeric(29)}`;
  const c = boleto.customer;
  const view = await createCobV(
    sql,
    // The boleto's QR is no integrator's Pix charge: the sandbox's fictitious payer does not pay it on creation.
    { accountId: caller.accountId, now: caller.now, publicUrl: caller.publicUrl, chargeCreated: [] },
    txid,
    {
      ...dueTerms(boleto.amount_cents, boleto.due_date, boleto.terms),
      devedor: c.juridical_person
        ? {
            cnpj: c.juridical_person.cnpj,
            nome: c.juridical_person.corporate_name.slice(0, LIMITS.devedorNomeMaxChars),
          }
        : { cpf: c.cpf!, nome: c.name!.slice(0, LIMITS.devedorNomeMaxChars) },
      chave,
      ...(boleto.message && { solicitacaoPagador: boleto.message }),
    },
  );
  return { id: await pixChargeIdOf(sql, caller.accountId, txid), txid, qrcode: view.pixCopiaECola! };
}

export function checkDueDate(caller: BillingCaller, expireAt: string, property: string): void {
  if (expireAt < brasiliaDate(caller.now)) throw invalid(property, 'a data de vencimento não pode estar no passado.');
}

/**
 * new (or link: the payer chose boleto on the link page) → waiting: issues the boleto of `charge` (the caller
 * holds its lock): total = items + shippings − discount,
 * the terms in cents, the Pix QR, the barcode; the unpaid check queued for the day after the due date.
 */
export async function issueBoleto(
  sql: Sql,
  caller: BillingCaller,
  charge: ChargeRow,
  input: BankingBilletInput,
  from: 'new' | 'link' = 'new',
): Promise<BoletoRow> {
  requireStatus(charge, [from], 'Definir a forma de pagamento');
  const juridical = checkCustomer(input.customer);
  checkDueDate(caller, input.expire_at, 'expire_at');
  const discount = discountCents(charge.total_cents, input.discount, 'discount');
  const amount = charge.total_cents - discount;
  if (amount > BANK_AMOUNT_MAX_CENTS) throw invalid('discount', 'o total não cabe no código de barras.');
  const terms = termsOf(input, amount, input.expire_at);
  const draft = {
    account_id: charge.account_id,
    amount_cents: amount,
    due_date: input.expire_at,
    terms,
    customer: input.customer,
    message: input.message ?? null,
  };
  const pix = await issuePixCharge(sql, caller, draft);
  const boleto: BoletoRow = {
    ...draft,
    charge_id: charge.id,
    barcode: barcodeOf(charge.account_id, charge.id, input.expire_at, amount),
    pix_charge_id: pix?.id ?? null,
    pix_txid: pix?.txid ?? null,
    pix_qrcode: pix?.qrcode ?? null,
    link_token: newPageToken(),
    balance_sheet: null,
    barcode_paid_at: null,
    barcode_paid_cents: null,
    barcode_payer: null,
    credit_at: null,
    created_at: caller.now,
  };
  await insertBoleto(sql, boleto);
  const payment: BoletoPaymentRecord = {
    method: 'banking_billet',
    customer: input.customer,
    juridical_person: juridical,
    discount_cents: discount,
    message: input.message ?? null,
  };
  await transition(sql, charge, from, 'waiting', caller.now, {
    message: juridical ? `Pagador pessoa jurídica: ${input.customer.juridical_person!.corporate_name}.` : undefined,
    changes: { payment, total_cents: amount },
  });
  await enqueueBoletoJob(sql, BOLETO_TOPICS.expire, charge, expiryAt(input.expire_at), caller.now);
  return boleto;
}
