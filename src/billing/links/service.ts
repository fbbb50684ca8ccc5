/**
 * Payment links: a charge in `link` whose page (`payment_url`, on the pages listener) lets the payer choose
 * among the methods the link allows, asks for the delivery address when the link says so, and takes no payment
 * after its last day (the account's clock). Card goes through the existing checkout with the link's card
 * discount. No HTTP here.
 */
import { newPageToken } from '../shared/url-tokens.ts';
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { brasiliaDate, brasiliaDateTime, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import { billingError, chargeNotFound } from '../shared/errors.ts';
import type { BillingCaller } from '../shared/caller.ts';
import { createCharge } from '../charges/service.ts';
import { lockCharge, type ChargeRow } from '../charges/store.ts';
import { requireStatus, transition } from '../charges/transitions.ts';
import type { CreditCardInput } from '../charges/schemas.ts';
import type { DeliveryAddressInput, LinkSettingsInput, OneStepLinkInput } from './schemas.ts';
import { findAccount } from '../../accounts/store.ts';
import { sendBillingMail, type Mailer } from '../mail/service.ts';
import { issueBoleto } from '../boletos/issue.ts';
import type { BankingBilletInput } from '../boletos/schemas.ts';
import type { BoletoRow } from '../boletos/store.ts';
import { findLink, insertLink, saveDeliveryAddress, updateLinkSettings, type LinkRow } from './store.ts';

/** Link tokens are 18 random bytes in base64url; anything else is simply unknown. */
const LINK_TOKEN = /^[A-Za-z0-9_-]{24}$/;

export const linkNotFound = () => billingError(404, 'link_not_found', 'Link de pagamento não encontrado.');
export const paymentUrl = (pagesUrl: string, link: Pick<LinkRow, 'token'>) => `${pagesUrl}/link/${link.token}`;

export const isExpired = (link: Pick<LinkRow, 'expire_at'>, now: Date) => brasiliaDate(now) > link.expire_at;

function checkSettings(settings: LinkSettingsInput, now: Date): void {
  const today = toEpochDay(brasiliaDate(now));
  const last = toEpochDay(settings.expire_at);
  if (last < today || last > today + LIMITS.billingLinkMaxDays)
    throw billingError(
      400,
      'validation_error',
      `settings.expire_at: entre hoje (${brasiliaDate(now)}) e ${fromEpochDay(today + LIMITS.billingLinkMaxDays)}.`,
    );
}

async function lockOwn(sql: Sql, caller: BillingCaller, id: number): Promise<ChargeRow> {
  const charge = await lockCharge(sql, { id, accountId: caller.accountId });
  if (!charge) throw chargeNotFound();
  return charge;
}

/** POST /v1/charge/:id/link: new → link. */
export async function defineLink(
  sql: Sql,
  caller: BillingCaller,
  charge: ChargeRow,
  settings: LinkSettingsInput,
): Promise<{ charge: ChargeRow; link: LinkRow }> {
  requireStatus(charge, ['new'], 'O link de pagamento');
  checkSettings(settings, caller.now);
  const link = await insertLink(sql, charge.id, newPageToken(), settings, caller.now);
  await transition(sql, charge, 'new', 'link', caller.now);
  return { charge, link };
}

export const defineLinkOf = async (sql: Sql, caller: BillingCaller, id: number, settings: LinkSettingsInput) =>
  defineLink(sql, caller, await lockOwn(sql, caller, id), settings);

/** POST /v1/charge/one-step/link: the charge and its link at once. */
export async function oneStepLink(sql: Sql, caller: BillingCaller, body: OneStepLinkInput) {
  const { settings, customer: _customer, ...charge } = body;
  return defineLink(sql, caller, await createCharge(sql, caller, charge), settings);
}

/** PUT /v1/charge/:id/link: only while the payer has not paid (the charge still in `link`). */
export async function updateLink(sql: Sql, caller: BillingCaller, id: number, settings: LinkSettingsInput) {
  const charge = await lockOwn(sql, caller, id);
  requireStatus(charge, ['link'], 'Alterar o link de pagamento');
  checkSettings(settings, caller.now);
  return { charge, link: await updateLinkSettings(sql, charge.id, settings, caller.now) };
}

export const linkView = (caller: BillingCaller, { charge, link }: { charge: ChargeRow; link: LinkRow }) => ({
  charge_id: charge.id,
  status: charge.status,
  total: charge.total_cents,
  custom_id: charge.custom_id,
  payment_url: paymentUrl(caller.pagesUrl, link),
  payment_method: link.payment_method,
  billet_discount: link.billet_discount,
  card_discount: link.card_discount,
  conditional_discount_value: link.conditional_discount?.value ?? null,
  conditional_discount_type: link.conditional_discount?.type ?? null,
  conditional_discount_date: link.conditional_discount?.until_date ?? null,
  request_delivery_address: link.request_delivery_address,
  message: link.message,
  expire_at: link.expire_at,
  created_at: brasiliaDateTime(link.created_at),
});

export async function linkByToken(sql: Sql, token: string): Promise<LinkRow | undefined> {
  return LINK_TOKEN.test(token) ? findLink(sql, { token }) : undefined;
}

/**
 * What a card payment of a link charge gets (called by the checkout before it pays): the link's card discount;
 * refused once the link expired, for card or when the link does not allow card, and before the delivery
 * address the link asks for was given.
 */
export async function linkCardTerms(
  sql: Sql,
  charge: ChargeRow,
  now: Date,
): Promise<Pick<CreditCardInput, 'discount'>> {
  if (charge.status !== 'link') return {};
  const link = (await findLink(sql, { chargeId: charge.id }))!;
  if (isExpired(link, now))
    throw billingError(400, 'link_expired', `O link de pagamento expirou em ${link.expire_at}.`);
  if (link.payment_method === 'banking_billet')
    throw billingError(400, 'link_method_not_allowed', 'Este link não aceita cartão de crédito.');
  if (link.request_delivery_address && !link.delivery_address)
    throw billingError(400, 'validation_error', 'delivery_address: informe o endereço de entrega.');
  return link.card_discount ? { discount: { type: 'percentage', value: link.card_discount } } : {};
}

/** The payer chose card on the link page: the delivery address kept (when asked), the checkout's address returned. */
export async function chooseCard(
  sql: Sql,
  link: LinkRow,
  charge: ChargeRow,
  address: DeliveryAddressInput | undefined,
  now: Date,
): Promise<void> {
  if (charge.status !== 'link') return;
  await checkChoice(sql, link, charge, 'credit_card', address, now);
}

/**
 * The payer chose boleto or Pix on the link page: the charge (locked here) issued as a boleto due on the link's
 * last day, with the link's boleto discount; its Pix QR (the boleto's cobv) is the Pix option. Once only: a
 * second post finds the charge no longer `link` and changes nothing (undefined). Answers the boleto and its terms.
 */
export async function chooseBoleto(
  sql: Sql,
  caller: BillingCaller,
  link: LinkRow,
  payer: { name: string; cpf: string },
  address: DeliveryAddressInput | undefined,
): Promise<{ billet: BankingBilletInput; boleto: BoletoRow } | undefined> {
  const charge = (await lockCharge(sql, { id: link.charge_id }))!;
  if (charge.status !== 'link') return undefined;
  await checkChoice(sql, link, charge, 'banking_billet', address, caller.now);
  const billet: BankingBilletInput = {
    customer: payer,
    expire_at: link.expire_at,
    ...(link.billet_discount && { discount: { type: 'percentage' as const, value: link.billet_discount } }),
  };
  return { billet, boleto: await issueBoleto(sql, caller, charge, billet, 'link') };
}

async function checkChoice(
  sql: Sql,
  link: LinkRow,
  charge: ChargeRow,
  method: 'credit_card' | 'banking_billet',
  address: DeliveryAddressInput | undefined,
  now: Date,
): Promise<void> {
  if (isExpired(link, now))
    throw billingError(400, 'link_expired', `O link de pagamento expirou em ${link.expire_at}.`);
  if (link.payment_method !== 'all' && link.payment_method !== method)
    throw billingError(
      400,
      'link_method_not_allowed',
      method === 'credit_card' ? 'Este link não aceita cartão de crédito.' : 'Este link não aceita boleto nem Pix.',
    );
  if (link.request_delivery_address) {
    if (!address) throw billingError(400, 'validation_error', 'delivery_address: informe o endereço de entrega.');
    await saveDeliveryAddress(sql, charge.id, address, now);
  }
}

/**
 * sendLinkEmail and sendSubscriptionLinkEmail: the link's address to the payer, through the mail outbox (the
 * sandbox keeps it as the mailbox; production refuses with mail_not_configured until it has a sender).
 */
export async function mailLink(sql: Sql, caller: BillingCaller, mailer: Mailer, id: number, to: string): Promise<void> {
  const charge = await lockOwn(sql, caller, id);
  requireStatus(charge, ['link'], 'Reenviar o link de pagamento');
  const link = (await findLink(sql, { chargeId: charge.id }))!;
  const owner = await findAccount(sql, charge.account_id);
  await sendBillingMail(
    sql,
    mailer,
    {
      accountId: charge.account_id,
      to,
      subject: `Link de pagamento de ${owner!.nome}`,
      body: `${owner!.nome} enviou um link de pagamento para você.\n\nPague até ${link.expire_at.split('-').reverse().join('/')}: ${paymentUrl(caller.pagesUrl, link)}\n`,
      reference: `billing_charge:${charge.id}`,
    },
    caller.now,
  );
}
