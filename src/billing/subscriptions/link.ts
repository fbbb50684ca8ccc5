/**
 * Subscription links (createOneStepSubscriptionLink): the subscription (new), its first charge in `link` and
 * that charge's page, where the payer chooses how to pay. Card (through the checkout) or boleto/Pix (the page
 * issues the boleto; its QR is the Pix option) makes the subscription active on that method, and its renewals
 * follow it: the stored card, or a boleto with the same terms issued ahead of each due date.
 */
import { newPageToken } from '../shared/url-tokens.ts';
import type { Sql } from '../../platform/db/database.ts';
import { brasiliaDate, brasiliaDateTime } from '../../platform/calendar.ts';
import type { BillingCaller } from '../shared/caller.ts';
import type { CardPaymentRecord, ChargeRow } from '../charges/store.ts';
import { chooseBoleto, defineLink, paymentUrl } from '../links/service.ts';
import type { LinkRow } from '../links/store.ts';
import type { DeliveryAddressInput } from '../links/schemas.ts';
import { activate } from './activation.ts';
import type { SubscriptionLinkInput } from './schemas.ts';
import { createSubscription } from './service.ts';
import { findSubscription, lockSubscription, type SubscriptionRow } from './store.ts';

/** POST /v1/plan/:id/subscription/one-step/link: the subscription, its first charge and that charge's link. */
export async function oneStepSubscriptionLink(
  sql: Sql,
  caller: BillingCaller,
  planId: number,
  body: SubscriptionLinkInput,
) {
  const { settings, ...rest } = body;
  const made = await createSubscription(sql, caller, planId, rest, newPageToken());
  const { link } = await defineLink(sql, caller, made.charge, settings);
  return { ...made, link };
}

export const subscriptionLinkView = (
  caller: BillingCaller,
  { subscription, charge, link }: { subscription: SubscriptionRow; charge: ChargeRow; link: LinkRow },
) => ({
  subscription_id: subscription.id,
  status: subscription.status,
  custom_id: subscription.custom_id,
  charge: { id: charge.id, status: charge.status, total: charge.total_cents, parcel: 1 },
  payment_url: paymentUrl(caller.pagesUrl, link),
  payment_method: link.payment_method,
  conditional_discount_date: link.conditional_discount?.until_date ?? null,
  request_delivery_address: link.request_delivery_address,
  expire_at: link.expire_at,
  created_at: brasiliaDateTime(subscription.created_at),
});

/** The subscription a link's charge starts (made by a subscription link and still new), if any. */
async function newLinkSubscription(sql: Sql, chargeId: number): Promise<SubscriptionRow | undefined> {
  const found = await findSubscription(sql, { chargeId });
  return found?.status === 'new' && found.link_token ? found : undefined;
}

/**
 * After the checkout set the card payment of a charge: when it is the first charge of a subscription made by a
 * subscription link (still new), the subscription becomes active on that card.
 */
export async function firstChargePaidByLink(sql: Sql, charge: ChargeRow, now: Date): Promise<void> {
  if (!charge.recurrent || charge.payment?.method !== 'credit_card') return;
  const found = await newLinkSubscription(sql, charge.id);
  if (!found) return;
  await activate(
    sql,
    (await lockSubscription(sql, { id: found.id }))!,
    now,
    { firstExecution: brasiliaDate(now), payment: charge.payment as CardPaymentRecord },
    'Primeira cobrança paga pelo link.',
  );
}

/**
 * The payer chose boleto or Pix on a link's page (`chooseBoleto`); on a subscription link's first charge the
 * subscription also becomes active, its renewals boletos with the terms the page issued (the payer, the link's
 * boleto discount), the first due date (the link's last day) its first execution. The subscription is locked
 * before its charge, the order every subscription path takes.
 */
export async function chooseLinkBoleto(
  sql: Sql,
  caller: BillingCaller,
  link: LinkRow,
  payer: { name: string; cpf: string },
  address: DeliveryAddressInput | undefined,
): Promise<void> {
  const found = await newLinkSubscription(sql, link.charge_id);
  const subscription = found && (await lockSubscription(sql, { id: found.id }));
  const issued = await chooseBoleto(sql, caller, link, payer, address);
  if (!issued || subscription?.status !== 'new') return;
  await activate(
    sql,
    subscription,
    caller.now,
    { firstExecution: issued.boleto.due_date, payment: { method: 'banking_billet', billet: issued.billet } },
    'Primeira cobrança emitida como boleto pelo link.',
  );
}
