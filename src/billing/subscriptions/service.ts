/** Subscriptions: create, pay (card), detail, update, metadata, history, cancel. No HTTP here. */
import type { Sql } from '../../platform/db/database.ts';
import { brasiliaDate, brasiliaDateTime } from '../../platform/calendar.ts';
import { billingError } from '../shared/errors.ts';
import type { BillingCaller } from '../shared/caller.ts';
import { answerCardPayment, grossTotal, setCardPayment } from '../charges/payment.ts';
import { applyMetadata, checkNotificationUrl, countUrlChange } from '../charges/service.ts';
import { findPlanById, type PlanRow } from '../plans/store.ts';
import { activate } from './activation.ts';
import { startTrial } from './trial.ts';
import { requirePlan } from '../plans/service.ts';
import { subscriptionCharge } from './renewal.ts';
import type {
  OneStepSubscriptionInput,
  SubscriptionCreateInput,
  SubscriptionMetadataInput,
  SubscriptionPaymentInput,
  SubscriptionUpdateInput,
} from './schemas.ts';
import {
  chargesOfSubscription,
  findSubscription,
  insertSubscription,
  insertSubscriptionHistory,
  lockSubscription,
  subscriptionHistoryOf,
  updateSubscription,
  type SubscriptionRow,
} from './store.ts';
import { lockCharge, type CardPaymentRecord, type ChargeRow } from '../charges/store.ts';
import { transition } from '../charges/transitions.ts';
import { moveSubscription, recordCreation } from './transitions.ts';
import { issueBoleto } from '../boletos/issue.ts';
import { boletoFields } from '../boletos/view.ts';

export const subscriptionNotFound = () =>
  billingError(404, 'subscription_not_found', 'Assinatura não encontrada para esta conta.');

export async function lockOwnSubscription(sql: Sql, caller: BillingCaller, id: number): Promise<SubscriptionRow> {
  const s = await lockSubscription(sql, { id, accountId: caller.accountId });
  if (!s) throw subscriptionNotFound();
  return s;
}

/** The subscription (status new) and its first charge (parcel 1, status new). */
export async function createSubscription(
  sql: Sql,
  caller: BillingCaller,
  planId: number,
  body: SubscriptionCreateInput,
  linkToken: string | null = null,
): Promise<{ subscription: SubscriptionRow; plan: PlanRow; charge: ChargeRow }> {
  checkNotificationUrl(body.metadata?.notification_url);
  const plan = await requirePlan(sql, caller.accountId, planId);
  const subscription = await insertSubscription(
    sql,
    {
      account_id: caller.accountId,
      plan_id: plan.id,
      items: body.items.map((i) => ({ ...i, amount: i.amount ?? 1 })),
      shippings: body.shippings ?? [],
      custom_id: body.metadata?.custom_id ?? null,
      notification_url: body.metadata?.notification_url ?? null,
      link_token: linkToken,
    },
    caller.now,
  );
  const charge = await subscriptionCharge(sql, subscription, 1, caller.now);
  await recordCreation(sql, subscription, caller.now);
  return { subscription, plan, charge };
}

export const createdView = (subscription: SubscriptionRow, charge: ChargeRow) => ({
  subscription_id: subscription.id,
  status: subscription.status,
  custom_id: subscription.custom_id,
  charges: [{ charge_id: charge.id, status: charge.status, total: charge.total_cents, parcel: 1 }],
  created_at: brasiliaDateTime(subscription.created_at),
});

type Paid = { subscription: SubscriptionRow; plan: PlanRow; charge: ChargeRow; billet?: BilletFields };
type BilletFields = Pick<
  Awaited<ReturnType<typeof boletoFields>>,
  'barcode' | 'link' | 'billet_link' | 'pdf' | 'expire_at'
>;

/**
 * new → active: the first charge is paid with the card at once (the issuer answers inline), the card is kept
 * for the renewals and the second parcel is scheduled; with `trial_days` the card is kept and the first charge
 * waits for the trial's end (trial.ts); or the first charge is a boleto (its due date the first execution) and
 * each renewal another boleto with the same terms.
 */
export async function paySubscription(
  sql: Sql,
  caller: BillingCaller,
  subscription: SubscriptionRow,
  payment: SubscriptionPaymentInput,
): Promise<Paid> {
  if (subscription.status !== 'new')
    throw billingError(
      400,
      'invalid_subscription_status',
      `A forma de pagamento só pode ser definida numa assinatura new; ela está em ${subscription.status}.`,
    );
  const [first] = await chargesOfSubscription(sql, subscription.id);
  const charge = (await lockCharge(sql, { id: first.charge_id }))!;
  if (!payment.credit_card === !payment.banking_billet)
    throw billingError(400, 'validation_error', 'payment: informe credit_card ou banking_billet (um dos dois).');
  if (payment.banking_billet) {
    const boleto = await issueBoleto(sql, caller, charge, payment.banking_billet);
    const plan = await activate(sql, subscription, caller.now, {
      firstExecution: boleto.due_date,
      payment: { method: 'banking_billet', billet: payment.banking_billet },
    });
    const { barcode, link, billet_link, pdf, expire_at } = await boletoFields(caller, boleto);
    return { subscription, plan, charge, billet: { barcode, link, billet_link, pdf, expire_at } };
  }
  const { trial_days, ...card } = payment.credit_card!;
  if (trial_days)
    return { subscription, charge, plan: await startTrial(sql, caller, subscription, charge, card, trial_days) };
  await setCardPayment(sql, charge, card, caller.now, { answerNow: true });
  await answerCardPayment(sql, charge, caller.now, caller.faults);
  const plan = await activate(sql, subscription, caller.now, {
    firstExecution: brasiliaDate(caller.now),
    payment: charge.payment as CardPaymentRecord,
  });
  return { subscription, plan, charge };
}

export const paidView = ({ subscription, plan, charge, billet }: Paid) => ({
  subscription_id: subscription.id,
  status: subscription.status,
  plan: { id: plan.id, interval: plan.interval_months, repeats: plan.repeats },
  charge: { id: charge.id, status: charge.status, parcel: 1, total: charge.total_cents },
  first_execution: subscription.first_execution!.split('-').reverse().join('/'),
  total: charge.total_cents,
  payment: subscription.payment!.method,
  ...billet,
});

export async function oneStepSubscription(
  sql: Sql,
  caller: BillingCaller,
  planId: number,
  body: OneStepSubscriptionInput,
) {
  const { payment, ...rest } = body;
  const { subscription } = await createSubscription(sql, caller, planId, rest);
  return paySubscription(sql, caller, subscription, payment);
}

export async function subscriptionDetail(sql: Sql, caller: BillingCaller, id: number) {
  const s = await findSubscription(sql, { id, accountId: caller.accountId });
  if (!s) throw subscriptionNotFound();
  const plan = (await findPlanById(sql, s.plan_id))!;
  const [charges, history] = await Promise.all([chargesOfSubscription(sql, s.id), subscriptionHistoryOf(sql, s.id)]);
  return {
    subscription_id: s.id,
    value: grossTotal(s),
    status: s.status,
    custom_id: s.custom_id,
    notification_url: s.notification_url,
    payment_method: s.payment?.method ?? null,
    next_execution: s.next_execution,
    next_expire_at: s.next_execution,
    plan: { plan_id: plan.id, name: plan.name, interval: plan.interval_months, repeats: plan.repeats },
    occurrences: s.occurrences,
    created_at: brasiliaDateTime(s.created_at),
    history: [
      ...charges.map((c) => ({
        charge_id: c.charge_id,
        parcel: c.parcel,
        status: c.status,
        created_at: brasiliaDateTime(c.created_at),
      })),
      ...history.map((h) => ({
        status: h.status ?? s.status,
        message: h.message,
        created_at: brasiliaDateTime(h.created_at),
      })),
    ],
  };
}

/** Only card subscriptions change; the next renewals use the new plan, items and shippings. */
export async function changeSubscription(sql: Sql, caller: BillingCaller, id: number, body: SubscriptionUpdateInput) {
  const s = await lockOwnSubscription(sql, caller, id);
  if (s.payment?.method !== 'credit_card')
    throw billingError(400, 'subscription_not_card', 'Só assinaturas pagas por cartão de crédito podem ser alteradas.');
  if (!['active', 'new_charge'].includes(s.status))
    throw billingError(400, 'invalid_subscription_status', `A assinatura está em ${s.status}.`);
  const plan = body.plan_id ? await requirePlan(sql, caller.accountId, body.plan_id) : undefined;
  const customer = { ...s.payment.customer, ...body.customer };
  const changes = {
    ...(plan && { plan_id: plan.id }),
    ...(body.items && { items: body.items.map((i) => ({ ...i, amount: i.amount ?? 1 })) }),
    ...(body.shippings && { shippings: body.shippings }),
    payment: { ...s.payment, customer },
  };
  await updateSubscription(sql, s.id, changes, caller.now);
  Object.assign(s, changes);
  await insertSubscriptionHistory(sql, s.id, { message: 'Dados da assinatura alterados.' }, caller.now);
  const detail = await subscriptionDetail(sql, caller, s.id);
  const { history: _history, ...rest } = detail;
  return {
    ...rest,
    customer: { email: String(customer.email ?? ''), phone_number: String(customer.phone_number ?? '') },
  };
}

/**
 * custom_id and notification_url of the subscription and of each of its charges: the renewals made later copy
 * the subscription's, and the charges already made (the first one carries the subscription's own events) take
 * them now, so every later event goes to the new URL with the new custom_id. A URL change counts once against
 * the account's metadata limit.
 */
export async function updateSubscriptionMetadata(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  body: SubscriptionMetadataInput,
): Promise<void> {
  checkNotificationUrl(body.notification_url);
  const s = await lockOwnSubscription(sql, caller, id);
  const metadata = {
    ...(body.custom_id !== undefined && { custom_id: body.custom_id }),
    ...(body.notification_url !== undefined && { notification_url: body.notification_url }),
  };
  if (metadata.notification_url !== undefined && metadata.notification_url !== s.notification_url)
    await countUrlChange(sql, caller);
  await updateSubscription(sql, s.id, metadata, caller.now);
  const charges = await chargesOfSubscription(sql, s.id);
  // `resend: true` notifies the subscription's newest charge again (its newest event is the subscription's).
  const newest = Math.max(...charges.map((c) => c.charge_id));
  for (const { charge_id } of charges) {
    const resend = body.resend && charge_id !== newest ? undefined : body.resend;
    await applyMetadata(
      sql,
      (await lockCharge(sql, { id: charge_id }))!,
      { ...metadata, ...(resend !== undefined && { resend }) },
      caller.now,
    );
  }
}

export async function addSubscriptionHistory(sql: Sql, caller: BillingCaller, id: number, description: string) {
  const s = await lockOwnSubscription(sql, caller, id);
  await insertSubscriptionHistory(sql, s.id, { message: description }, caller.now);
}

/**
 * Cancel stops future renewals (the pending renewal or trial job finds the subscription canceled and does
 * nothing), and its charges nobody can pay any more go with it: a first charge still `new` (never paid for,
 * or waiting for its trial's end) or still `link` (its page would take a payment for a canceled subscription).
 */
export async function cancelSubscription(sql: Sql, caller: BillingCaller, id: number): Promise<void> {
  const s = await lockOwnSubscription(sql, caller, id);
  await moveSubscription(sql, s, 'canceled', caller.now, { changes: { next_execution: null } });
  for (const c of await chargesOfSubscription(sql, s.id)) {
    if (c.status !== 'new' && c.status !== 'link') continue;
    const charge = (await lockCharge(sql, { id: c.charge_id }))!;
    await transition(sql, charge, charge.status, 'canceled', caller.now, {
      message: 'Cobrança cancelada com a assinatura.',
    });
  }
}
