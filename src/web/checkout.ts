/**
 * The checkout page's service: what the page shows of a charge (by its unguessable checkout token) and the
 * payment it submits. The page never sees card data in clear beyond the browser: it sends a payment_token made
 * by the browser library, and the payment goes through the same service as POST /v1/charge/:id/pay (or /retry
 * after a refusal).
 */
import type { Sql } from '../platform/db/database.ts';
import { billingError } from '../billing/shared/errors.ts';
import { findCharge } from '../billing/charges/store.ts';
import { payCharge, retryCharge, type BillingCaller } from '../billing/charges/service.ts';
import type { CreditCardInput } from '../billing/charges/schemas.ts';

const notFound = () => billingError(404, 'checkout_not_found', 'Página de pagamento não encontrada.');

export async function checkoutData(sql: Sql, checkoutToken: string, environment: string) {
  const charge = await findCharge(sql, { checkoutToken });
  if (!charge) throw notFound();
  const { rows } = await sql.query<{ payee_code: string }>('select payee_code from accounts where id = $1', [
    charge.account_id,
  ]);
  return {
    charge_id: charge.id,
    status: charge.status,
    total: charge.total_cents,
    items: charge.items.map((i) => ({ name: i.name, value: i.value, amount: i.amount ?? 1 })),
    reason: charge.refusal_reason,
    payee_code: rows[0].payee_code,
    environment,
  };
}

export async function checkoutPay(
  sql: Sql,
  checkoutToken: string,
  card: CreditCardInput,
  /** The time of the charge's account (the sandbox moves it per account). */
  now: (accountId: number) => Date,
  publicUrl: string,
): Promise<string> {
  const charge = await findCharge(sql, { checkoutToken });
  if (!charge) throw notFound();
  const caller: BillingCaller = { accountId: charge.account_id, now: now(charge.account_id), publicUrl };
  const paid =
    charge.status === 'unpaid'
      ? await retryCharge(sql, caller, charge.id, card)
      : await payCharge(sql, caller, charge.id, card);
  return paid.status;
}
