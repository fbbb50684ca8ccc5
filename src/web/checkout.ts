/**
 * The checkout page's service: what the page shows of a charge (by its unguessable checkout token) and the
 * payment it submits. The page never sees card data in clear beyond the browser: it sends a payment_token made
 * by the browser library, and the payment goes through the same service as POST /v1/charge/:id/pay (or /retry
 * after a refusal). What a shopper reads is Portuguese: the issuer's refusal reasons (English in the Efí
 * contract, kept so in the API) are translated here.
 */
import assert from 'node:assert/strict';
import type { Sql } from '../platform/db/database.ts';
import { findAccount } from '../accounts/store.ts';
import { billingError } from '../billing/shared/errors.ts';
import { findCharge, type ChargeRow } from '../billing/charges/store.ts';
import { SANDBOX_APPROVED_EXAMPLES, SANDBOX_REFUSALS, grossTotal } from '../billing/charges/payment.ts';
import { payCharge, retryCharge, type BillingCaller } from '../billing/charges/service.ts';
import type { CreditCardInput } from '../billing/charges/schemas.ts';
import { linkCardTerms } from '../billing/links/service.ts';
import { firstChargePaidByLink } from '../billing/subscriptions/link.ts';

/** Checkout tokens are 18 random bytes in base64url (24 characters); anything else is simply unknown. */
const CHECKOUT_TOKEN = /^[A-Za-z0-9_-]{10,64}$/;

const notFound = () => billingError(404, 'checkout_not_found', 'Página de pagamento não encontrada.');

/** The shopper's reading of each sandbox refusal, by the same last digit that decides it. */
const SHOPPER_REFUSALS: Record<string, string> = {
  '1': 'Os dados do cartão não foram aceitos. Confira o número, a validade e o código de segurança.',
  '2': 'O emissor do cartão não autorizou o pagamento por segurança. Tente outro cartão.',
  '3': 'O emissor do cartão não autorizou o pagamento agora. Tente novamente em alguns minutos.',
};
assert.deepEqual(Object.keys(SHOPPER_REFUSALS), Object.keys(SANDBOX_REFUSALS), 'every refusal has a translation');
const REFUSAL_FOR_SHOPPER = new Map(
  Object.entries(SANDBOX_REFUSALS).map(([d, reason]) => [reason, SHOPPER_REFUSALS[d]]),
);
const REFUSAL_FALLBACK = 'O pagamento não foi autorizado pelo emissor do cartão. Tente outro cartão.';

export interface CheckoutView {
  charge_id: number;
  status: ChargeRow['status'];
  merchant: string;
  items: { name: string; value: number; amount: number }[];
  /** Cents: shipping total, and the discount the card payment got (0 when none). */
  shipping: number;
  discount: number;
  total: number;
  /** Why the last card was refused, in Portuguese; null unless unpaid. */
  refusal: string | null;
  /** What the shopper's card payment was, once there is one (the receipt). */
  payment: {
    brand: string;
    last_digits: string;
    installments: number;
    installment_value: number;
    approved_at: string | null;
    paid_at: string | null;
  } | null;
  payee_code: string;
  environment: string;
  /** The sandbox's test-card rule, for the banner; null in production. */
  sandbox: { refused_digits: string[]; approved_examples: readonly string[] } | null;
}

async function chargeByToken(sql: Sql, checkoutToken: string): Promise<ChargeRow | undefined> {
  return CHECKOUT_TOKEN.test(checkoutToken) ? findCharge(sql, { checkoutToken, kind: 'charge' }) : undefined;
}

/** What the page shows; undefined for a token no charge has (the page answers its friendly 404). */
export async function checkoutView(
  sql: Sql,
  checkoutToken: string,
  environment: string,
): Promise<CheckoutView | undefined> {
  const charge = await chargeByToken(sql, checkoutToken);
  if (!charge) return undefined;
  const account = await findAccount(sql, charge.account_id);
  assert.ok(account, `account ${charge.account_id} of billing charge ${charge.id}`);
  const p = charge.payment;
  const gross = grossTotal(charge);
  const shipping = charge.shippings.reduce((sum, s) => sum + s.value, 0);
  return {
    charge_id: charge.id,
    status: charge.status,
    merchant: account.nome,
    items: charge.items.map((i) => ({ name: i.name, value: i.value, amount: i.amount ?? 1 })),
    shipping,
    discount: p && 'discount_cents' in p ? p.discount_cents : 0,
    total: charge.total_cents,
    refusal:
      charge.status === 'unpaid' ? (REFUSAL_FOR_SHOPPER.get(charge.refusal_reason ?? '') ?? REFUSAL_FALLBACK) : null,
    payment:
      p?.method !== 'credit_card'
        ? null
        : {
            brand: p.brand,
            last_digits: p.card_mask.slice(-4),
            installments: p.installments,
            installment_value: p.installment_value,
            approved_at: charge.approved_at?.toISOString() ?? null,
            paid_at: charge.paid_at?.toISOString() ?? null,
          },
    payee_code: account.payee_code,
    environment,
    sandbox:
      environment === 'sandbox'
        ? { refused_digits: Object.keys(SANDBOX_REFUSALS), approved_examples: SANDBOX_APPROVED_EXAMPLES }
        : null,
  };
}

/** GET /checkout/:token/data (the page polls it while the issuer answers). */
export async function checkoutData(sql: Sql, checkoutToken: string, environment: string): Promise<CheckoutView> {
  const view = await checkoutView(sql, checkoutToken, environment);
  if (!view) throw notFound();
  assert.equal(view.total, grossTotal({ items: view.items, shippings: [] }) + view.shipping - view.discount);
  return view;
}

export async function checkoutPay(
  sql: Sql,
  checkoutToken: string,
  card: CreditCardInput,
  /** The time of the charge's account (the sandbox moves it per account). */
  now: (accountId: number) => Date,
  pagesUrl: string,
): Promise<string> {
  const charge = await chargeByToken(sql, checkoutToken);
  if (!charge) throw notFound();
  const caller: BillingCaller = { accountId: charge.account_id, now: now(charge.account_id), pagesUrl };
  const paid =
    charge.status === 'unpaid'
      ? await retryCharge(sql, caller, charge.id, card)
      : await payCharge(sql, caller, charge.id, {
          credit_card: { ...card, ...(await linkCardTerms(sql, charge, caller.now)) },
        });
  await firstChargePaidByLink(sql, paid, caller.now);
  return paid.status;
}
