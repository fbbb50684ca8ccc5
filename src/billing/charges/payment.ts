/**
 * The card payment of a charge: setting it (new/unpaid → waiting), the issuer's answer (waiting → approved or
 * unpaid; sandbox outcome by the card number's last digit) and the confirmation (approved → paid) with its
 * ledger entries. Callers hold the charge row lock.
 */
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { ledgerCode, transfer } from '../../platform/ledger/ledger.ts';
import {
  defineTopic,
  enqueue,
  type JobDeps,
  type JobHandler,
  type NewJob,
  type Topic,
} from '../../platform/outbox/jobs.ts';
import type { FaultHooks } from '../../platform/faults.ts';
import { isValidCnpj, isValidCpf } from '../../platform/documents.ts';
import { billingError } from '../shared/errors.ts';
import { percentFloor, percentHalfUp } from '../../platform/money.ts';
import { cardNumberOf, spendPaymentToken } from '../tokens/service.ts';
import { installmentValue } from '../tokens/installments.ts';
import type { CreditCardInput } from './schemas.ts';
import { accountsByPayeeCode, lockCharge, type CardPaymentRecord, type ChargeRow } from './store.ts';
import { transition } from './transitions.ts';

type CardJob = { chargeId: number };
/** What card jobs need: the sandbox's faults on demand refuse card payments (docs/faults.md). */
type CardJobDeps = JobDeps & { faults?: FaultHooks };

/** A card job: in one transaction, `work` on the charge it names, locked (gone: nothing to do). */
const onCharge =
  (work: (sql: Sql, charge: ChargeRow, now: Date, faults?: FaultHooks) => Promise<unknown>) =>
  ({ db, clock, faults }: CardJobDeps): JobHandler<CardJob> =>
  async (job) => {
    await db.tx(async (sql) => {
      const charge = await lockCharge(sql, { id: job.payload.chargeId });
      if (charge) await work(sql, charge, clock.forAccount(charge.account_id).now(), faults);
    });
    return { done: true };
  };

/** The issuer's answer (waiting → approved or unpaid), then the confirmation (approved → paid). */
export const CARD_TOPICS = {
  authorize: defineTopic<CardJob, CardJobDeps>({
    name: 'billing.card.authorize',
    handler: onCharge(answerCardPayment),
  }),
  settle: defineTopic<CardJob, CardJobDeps>({ name: 'billing.card.settle', handler: onCharge(confirmCardPayment) }),
};

/** Spec: sandbox card simulation by the last digit of the number; any other digit is approved. */
export const SANDBOX_REFUSALS: Record<string, string> = {
  '1': 'Invalid card data.',
  '2': 'Transaction not authorized for security reasons.',
  '3': 'Transaction not authorized, please try again later.',
};
/** Approved sandbox numbers the docs and the checkout's sandbox banner show (any last digit but 1, 2, 3). */
export const SANDBOX_APPROVED_EXAMPLES = ['4012001038443335', '5555666677778884'] as const;

const invalidCustomer = (property: string, why: string) =>
  billingError(400, 'validation_error', `payment.credit_card.customer.${property}: ${why}`);

/** A company payer (juridical_person) needs only its corporate name and CNPJ; a person needs name, CPF and e-mail. */
function checkCustomer(customer: CreditCardInput['customer']): boolean {
  if (customer.juridical_person) {
    if (!isValidCnpj(customer.juridical_person.cnpj)) throw invalidCustomer('juridical_person.cnpj', 'CNPJ inválido.');
    return true;
  }
  for (const field of ['name', 'cpf', 'email'] as const)
    if (!customer[field]) throw invalidCustomer(field, 'propriedade obrigatória para pessoa física.');
  if (!isValidCpf(customer.cpf!)) throw invalidCustomer('cpf', 'CPF inválido.');
  return false;
}

/** Items (value × amount) plus shippings, in cents. */
export function grossTotal(charge: Pick<ChargeRow, 'items' | 'shippings'>): number {
  return (
    charge.items.reduce((sum, i) => sum + i.value * (i.amount ?? 1), 0) +
    charge.shippings.reduce((sum, s) => sum + s.value, 0)
  );
}

function discountCents(gross: number, discount: CreditCardInput['discount']): number {
  if (!discount) return 0;
  const cents =
    discount.type === 'currency'
      ? discount.value
      : percentHalfUp(gross, Math.min(discount.value, LIMITS.billingPercentScale));
  if (cents >= gross)
    throw billingError(
      400,
      'validation_error',
      'payment.credit_card.discount: o desconto não pode igualar ou superar o total.',
    );
  return cents;
}

/**
 * The card a payment is made with: the payer checked, the token spent (its vault reference kept), the total after
 * the discount and the installments. Nothing charged yet: a subscription's trial keeps it for later.
 */
export async function cardPaymentRecord(
  sql: Sql,
  charge: ChargeRow,
  card: CreditCardInput,
  now: Date,
): Promise<{ payment: CardPaymentRecord; totalCents: number }> {
  const juridical = checkCustomer(card.customer);
  const spent = await spendPaymentToken(sql, charge.account_id, card.payment_token, now);
  const gross = grossTotal(charge);
  const discount = discountCents(gross, card.discount);
  const total = gross - discount;
  const installments = card.installments ?? 1;
  const payment: CardPaymentRecord = {
    method: 'credit_card',
    installments,
    installment_value: installmentValue(total, installments),
    brand: spent.brand,
    card_mask: spent.cardMask,
    token_ref: spent.tokenRef,
    customer: card.customer,
    juridical_person: juridical,
    billing_address: card.billing_address ?? null,
    discount_cents: discount,
    message: card.message ?? null,
  };
  return { payment, totalCents: total };
}

/** new (or unpaid, on retry) → waiting: spends the token, fixes the total and installments, queues the issuer's answer. */
export async function setCardPayment(
  sql: Sql,
  charge: ChargeRow,
  card: CreditCardInput,
  now: Date,
  options: { answerNow?: boolean } = {},
): Promise<void> {
  const { payment, totalCents } = await cardPaymentRecord(sql, charge, card, now);
  const payer = payment.juridical_person
    ? `Pagador pessoa jurídica: ${card.customer.juridical_person!.corporate_name}.`
    : undefined;
  await transition(sql, charge, charge.status, 'waiting', now, {
    message: payer,
    changes: { payment, total_cents: totalCents, refusal_reason: null, refusal_retry: null },
  });
  if (!options.answerNow) await enqueueCardJob(sql, CARD_TOPICS.authorize, charge, now, now);
}

/** The card issuer's refusal of a card number, if it refuses it: the sandbox's, by its last digit. */
export const issuerRefusal = (cardNumber: string): string | undefined => SANDBOX_REFUSALS[cardNumber.slice(-1)];

/** A card job of a charge, on its account's clock. */
function enqueueCardJob(sql: Sql, topic: Topic<CardJob>, charge: ChargeRow, availableAt: Date, now: Date) {
  return enqueue(sql, { topic, payload: { chargeId: charge.id }, accountId: charge.account_id, availableAt, now });
}

/**
 * waiting → approved (confirmation queued) or unpaid with the refusal reason: the sandbox's by the card
 * number's last digit, or the one the account asked for (`faults`, docs/faults.md).
 */
export async function answerCardPayment(sql: Sql, charge: ChargeRow, now: Date, faults?: FaultHooks): Promise<void> {
  if (charge.status !== 'waiting' || charge.payment?.method !== 'credit_card') return;
  const number = await cardNumberOf(sql, charge.payment.token_ref);
  const reason = (await faults?.take(sql, charge.account_id, 'cartao'))?.motivo ?? issuerRefusal(number);
  if (reason) {
    // Retry is allowed for every refusal of a non-recurrent card charge (spec: retry rules).
    await transition(sql, charge, 'waiting', 'unpaid', now, {
      message: `Motivo: ${reason}`,
      changes: { refusal_reason: reason, refusal_retry: !charge.recurrent },
    });
    return;
  }
  await transition(sql, charge, 'waiting', 'approved', now, { changes: { approved_at: now } });
  await enqueue(sql, settleJob(charge, now));
}

/** The confirmation (approved → paid) of a charge approved at `now`, LIMITS.billingCardSettlementDelaySeconds later. */
function settleJob(charge: Pick<ChargeRow, 'id' | 'account_id'>, now: Date): NewJob<CardJob> {
  const availableAt = new Date(now.getTime() + LIMITS.billingCardSettlementDelaySeconds * 1000);
  return {
    topic: CARD_TOPICS.settle,
    payload: { chargeId: charge.id },
    accountId: charge.account_id,
    availableAt,
    now,
  };
}

/**
 * approved → paid, with the ledger: the acquirer pays the total to the seller; the card fee (half-up on the paid
 * amount) goes to revenue; marketplace shares (rounded down) and shippings go to their payees' accounts.
 */
export async function confirmCardPayment(sql: Sql, charge: ChargeRow, now: Date): Promise<boolean> {
  if (charge.status !== 'approved') return false;
  const paid = charge.total_cents;
  const seller = ledgerCode.available(charge.account_id);
  const reference = `billing_charge:${charge.id}`;
  const base = { reference, accountId: charge.account_id, at: now };
  await transfer(sql, {
    ...base,
    kind: 'billing_card_payment',
    from: ledgerCode.externalCard,
    to: seller,
    amountCents: paid,
  });
  const fee = percentHalfUp(paid, LIMITS.billingCardFeeBasisPoints);
  if (fee > 0)
    await transfer(sql, { ...base, kind: 'billing_card_fee', from: seller, to: ledgerCode.fees, amountCents: fee });
  const payees = await accountsByPayeeCode(
    sql,
    [...charge.items.map((i) => i.marketplace?.payee_code), ...charge.shippings.map((s) => s.payee_code)].filter(
      (c): c is string => !!c,
    ),
  );
  const payouts: [string, number, string][] = [
    ...charge.items
      .filter((i) => i.marketplace)
      .map((i): [string, number, string] => [
        i.marketplace!.payee_code,
        percentFloor(i.value * (i.amount ?? 1), i.marketplace!.percentage),
        'billing_marketplace_share',
      ]),
    ...charge.shippings
      .filter((s) => s.payee_code)
      .map((s): [string, number, string] => [s.payee_code!, s.value, 'billing_shipping_payout']),
  ];
  for (const [code, cents, kind] of payouts) {
    if (cents > 0)
      await transfer(sql, {
        ...base,
        kind,
        from: seller,
        to: ledgerCode.available(payees.get(code)!),
        amountCents: cents,
      });
  }
  await transition(sql, charge, 'approved', 'paid', now, {
    valueCents: paid,
    receivedByBankAt: now,
    changes: { paid_at: now, paid_cents: paid },
  });
  return true;
}
