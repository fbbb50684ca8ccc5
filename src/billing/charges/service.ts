/** Card charges: creation, payment (two-step and one-step), retry, cancel, read, metadata. No HTTP here. */
import { newNotificationToken, newPageToken } from '../shared/url-tokens.ts';
import { lockCustomer } from '../../platform/ledger/ledger.ts';
import type { Database, Sql } from '../../platform/db/database.ts';
import type { BillingCaller } from '../shared/caller.ts';
import { LIMITS } from '../../platform/limits.ts';
import { billingError, carnetNotFound, chargeNotFound } from '../shared/errors.ts';
import { brasiliaDateTime } from '../../platform/calendar.ts';
import { continueAfterUrlChange, enqueueNotification } from '../notifications/delivery.ts';
import { checkWebhookUrl, isUrlProblem } from '../../platform/webhooks/urls.ts';
import type { AnyPaymentInput, ChargeCreateInput, CreditCardInput, MetadataInput, OneStepInput } from './schemas.ts';
import { cancelBoleto, lockOwnBoleto, settleBoleto } from '../boletos/service.ts';
import { issueBoleto } from '../boletos/issue.ts';
import { findBoleto, lockPixChargeOf } from '../boletos/store.ts';
import { boletoFields } from '../boletos/view.ts';
import {
  accountsByPayeeCode,
  findCharge,
  historyOf,
  insertCharge,
  insertHistory,
  lockCharge,
  refundsOf,
  updateCharge,
  type CardPaymentRecord,
  type ChargeRow,
} from './store.ts';
import { answerCardPayment, confirmCardPayment, grossTotal, setCardPayment } from './payment.ts';
import { requestRefund } from './refunds.ts';
import { requireStatus, transition } from './transitions.ts';

export type { BillingCaller } from '../shared/caller.ts';

const checkoutUrl = (caller: BillingCaller, charge: ChargeRow) =>
  `${caller.pagesUrl}/checkout/${charge.checkout_token}`;

/** The caller's charge (or carnê, with kind 'carnet'), locked; 404 in the kind's words otherwise. */
export async function lockOwn(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  kind: ChargeRow['kind'] = 'charge',
): Promise<ChargeRow> {
  const charge = await lockCharge(sql, { id, accountId: caller.accountId, kind });
  if (!charge) throw kind === 'carnet' ? carnetNotFound() : chargeNotFound();
  return charge;
}

/** Marketplace and shipping payees must be other accounts of this service. */
async function checkPayees(sql: Sql, accountId: number, body: ChargeCreateInput): Promise<void> {
  const codes = [
    ...body.items.map((i) => i.marketplace?.payee_code),
    ...(body.shippings ?? []).map((s) => s.payee_code),
  ].filter((c): c is string => !!c);
  const found = await accountsByPayeeCode(sql, codes);
  for (const code of codes) {
    const payee = found.get(code);
    if (payee === undefined)
      throw billingError(400, 'invalid_payee_code', `payee_code ${code} não é uma conta deste serviço.`);
    if (payee === accountId)
      throw billingError(400, 'invalid_payee_code', `payee_code ${code} é a própria conta da cobrança.`);
  }
}

/**
 * A notification URL is refused when given unless pixd can POST to it (absolute HTTPS, no credentials, no
 * fragment: the webhook registrations' rule): accepted, every delivery would fail for days without the integrator
 * learning why.
 */
export function checkNotificationUrl(url: string | null | undefined): void {
  if (!url) return;
  const parsed = checkWebhookUrl(url);
  if (isUrlProblem(parsed)) throw billingError(400, 'validation_error', `metadata.notification_url: ${parsed.detail}`);
}

export async function createCharge(sql: Sql, caller: BillingCaller, body: ChargeCreateInput): Promise<ChargeRow> {
  checkNotificationUrl(body.metadata?.notification_url);
  await checkPayees(sql, caller.accountId, body);
  const draft = { items: body.items.map((i) => ({ ...i, amount: i.amount ?? 1 })), shippings: body.shippings ?? [] };
  const total = grossTotal(draft);
  if (!Number.isSafeInteger(total)) throw billingError(400, 'validation_error', 'total fora do intervalo.');
  const charge = await insertCharge(
    sql,
    {
      account_id: caller.accountId,
      status: 'new',
      total_cents: total,
      ...draft,
      custom_id: body.metadata?.custom_id ?? null,
      notification_url: body.metadata?.notification_url ?? null,
      notification_token: newNotificationToken(),
      checkout_token: newPageToken(),
      marketplace: body.items.some((i) => i.marketplace),
    },
    caller.now,
  );
  await transition(sql, charge, 'none', 'new', caller.now);
  return charge;
}

export const createdView = (caller: BillingCaller, c: ChargeRow) => ({
  charge_id: c.id,
  status: c.status,
  total: c.total_cents,
  custom_id: c.custom_id,
  created_at: brasiliaDateTime(c.created_at),
  checkout_url: checkoutUrl(caller, c),
});

/** The answer of one-step, /pay and /retry: the card's installments and refusal, or the boleto's barcode, QR and links. */
export async function paymentView(sql: Sql, caller: BillingCaller, c: ChargeRow) {
  const base = { charge_id: c.id, status: c.status, total: c.total_cents };
  if (c.payment?.method === 'banking_billet') {
    const boleto = await findBoleto(sql, { chargeId: c.id });
    return { ...base, payment: 'banking_billet', ...(await boletoFields(caller, boleto!)) };
  }
  // A charge (not a carnê) without a boleto is a card charge.
  const card = c.payment as CardPaymentRecord;
  return {
    ...base,
    installments: card.installments,
    installment_value: card.installment_value,
    payment: 'credit_card',
    ...(c.status === 'unpaid' && { refusal: { reason: c.refusal_reason!, retry: c.refusal_retry! } }),
  };
}

/** Exactly one payment method (the schema lists both as optional). */
function checkOneMethod(payment: AnyPaymentInput): void {
  if (!payment.credit_card === !payment.banking_billet)
    throw billingError(400, 'validation_error', 'payment: informe exatamente um de credit_card e banking_billet.');
}

/**
 * One step: created and its payment set in one transaction. A card is answered at once (approved, or unpaid
 * with the refusal); a boleto is issued (waiting).
 */
export async function oneStepCharge(sql: Sql, caller: BillingCaller, body: OneStepInput): Promise<ChargeRow> {
  const { payment, ...charge } = body;
  checkOneMethod(payment);
  const created = await createCharge(sql, caller, charge);
  if (payment.banking_billet) {
    await issueBoleto(sql, caller, created, payment.banking_billet);
    return created;
  }
  await setCardPayment(sql, created, payment.credit_card!, caller.now, { answerNow: true });
  await answerCardPayment(sql, created, caller.now, caller.faults);
  return created;
}

/** POST /v1/charge/:id/pay: new → waiting; a card's issuer answers through the outbox, a boleto is issued. */
export async function payCharge(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  payment: AnyPaymentInput,
): Promise<ChargeRow> {
  checkOneMethod(payment);
  const charge = await lockOwn(sql, caller, id);
  requireStatus(charge, ['new', 'link'], 'Definir a forma de pagamento');
  if (payment.banking_billet) await issueBoleto(sql, caller, charge, payment.banking_billet);
  else await setCardPayment(sql, charge, payment.credit_card!, caller.now);
  return charge;
}

/** POST /v1/charge/:id/retry: only card, unpaid, not recurrent. */
export async function retryCharge(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  card: CreditCardInput,
): Promise<ChargeRow> {
  const charge = await lockOwn(sql, caller, id);
  if (charge.payment?.method !== 'credit_card')
    throw billingError(400, 'retry_not_card', 'Só cobranças de cartão podem ser retentadas.');
  requireStatus(charge, ['unpaid'], 'A retentativa');
  if (charge.recurrent) throw billingError(400, 'retry_recurrent', 'Cobranças recorrentes não podem ser retentadas.');
  await setCardPayment(sql, charge, card, caller.now);
  return charge;
}

export async function cancelCharge(sql: Sql, caller: BillingCaller, id: number): Promise<void> {
  // A boleto's Pix charge is locked before the charge (the Pix engine's order); a card charge has none.
  await lockPixChargeOf(sql, id);
  const charge = await lockOwn(sql, caller, id);
  const boleto = await findBoleto(sql, { chargeId: id });
  if (boleto) return cancelBoleto(sql, charge, boleto, caller.now);
  requireStatus(charge, ['new', 'link', 'waiting', 'unpaid'], 'O cancelamento');
  await transition(sql, charge, charge.status, 'canceled', caller.now);
}

/** PUT /v1/charge/:id/settle: a boleto marked paid by hand (settled). */
export async function settleCharge(sql: Sql, caller: BillingCaller, id: number): Promise<void> {
  const { charge, boleto } = await lockOwnBoleto(sql, caller.accountId, id);
  await settleBoleto(sql, charge, boleto, caller.now);
}

/** POST /v1/charge/:id/history: the integrator's own line in the history (no status change, no notification). */
export async function addHistory(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  description: string,
  kind: ChargeRow['kind'] = 'charge',
): Promise<void> {
  const charge = await lockOwn(sql, caller, id, kind);
  await insertHistory(sql, charge.id, { message: description }, caller.now);
}

export async function refundCharge(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  amount: number | undefined,
): Promise<string> {
  return requestRefund(sql, await lockOwn(sql, caller, id), amount, caller.now);
}

/** PUT /v1/charge/:id/metadata; URL changes count against 7,500 per 24 h per account. */
export async function updateMetadata(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  metadata: MetadataInput,
  kind: ChargeRow['kind'] = 'charge',
): Promise<void> {
  checkNotificationUrl(metadata.notification_url);
  const charge = await lockOwn(sql, caller, id, kind);
  if (metadata.notification_url !== undefined && metadata.notification_url !== charge.notification_url)
    await countUrlChange(sql, caller);
  await applyMetadata(sql, charge, metadata, caller.now);
}

/** One change of a notification URL against the account's LIMITS.billingMetadataUpdatesPerWindow (429 past it). */
export async function countUrlChange(sql: Sql, caller: BillingCaller): Promise<void> {
  await lockCustomer(sql, caller.accountId);
  const since = new Date(caller.now.getTime() - LIMITS.billingMetadataUpdateWindowSeconds * 1000);
  const { rows } = await sql.query<{ n: number }>(
    'select count(*)::int as n from billing_metadata_updates where account_id = $1 and created_at > $2',
    [caller.accountId, since],
  );
  if (rows[0].n >= LIMITS.billingMetadataUpdatesPerWindow) {
    throw billingError(
      429,
      'metadata_update_limit',
      `Limite de ${LIMITS.billingMetadataUpdatesPerWindow} alterações da URL de notificação em 24 horas atingido.`,
    );
  }
  await sql.query('insert into billing_metadata_updates (account_id, created_at) values ($1, $2)', [
    caller.accountId,
    caller.now,
  ]);
}

/**
 * custom_id and notification_url of a locked charge, then its notification: `resend: true` notifies the newest
 * event again (a fresh 3-day window, even if its token was queried), `false` does not even to a new URL; without
 * it a new URL gets the newest unqueried event delivered again (the 3-day window counted from that event).
 */
export async function applyMetadata(sql: Sql, charge: ChargeRow, metadata: MetadataInput, now: Date): Promise<void> {
  const urlChanges = metadata.notification_url !== undefined && metadata.notification_url !== charge.notification_url;
  const changes = {
    ...(metadata.custom_id !== undefined && { custom_id: metadata.custom_id }),
    ...(metadata.notification_url !== undefined && { notification_url: metadata.notification_url }),
  };
  await updateCharge(sql, charge.id, changes, now);
  Object.assign(charge, changes);
  if (!charge.notification_url || metadata.resend === false || (!urlChanges && !metadata.resend)) return;
  const lastEventAt = (await historyOf(sql, charge.id)).filter((h) => h.event_id !== null).at(-1)?.created_at;
  if (metadata.resend) {
    if (lastEventAt) await enqueueNotification(sql, charge, now, now.getTime(), { resend: true });
  } else await continueAfterUrlChange(sql, charge, lastEventAt, now);
}

export async function chargeDetail(sql: Sql, caller: BillingCaller, id: number) {
  const c = await findCharge(sql, { id, accountId: caller.accountId, kind: 'charge' });
  if (!c) throw chargeNotFound();
  const [history, refunds] = await Promise.all([historyOf(sql, c.id), refundsOf(sql, c.id)]);
  const p = c.payment;
  const common = {
    charge_id: c.id,
    total: c.total_cents,
    status: c.status,
    custom_id: c.custom_id,
    created_at: brasiliaDateTime(c.created_at),
    notification_url: c.notification_url,
    items: c.items,
    shippings: c.shippings,
    history: history.map((h) => ({ message: h.message, created_at: brasiliaDateTime(h.created_at) })),
  };
  if (p?.method === 'banking_billet') {
    const boleto = (await findBoleto(sql, { chargeId: c.id }))!;
    const fields = await boletoFields(caller, boleto);
    const billet = c.carnet_id
      ? { carnet: { parcel: c.parcel, ...fields, url: fields.link, parcel_link: fields.link } }
      : { banking_billet: fields };
    return {
      ...common,
      customer: p.customer,
      payment: {
        method: c.carnet_id ? 'carnet' : 'banking_billet',
        created_at: brasiliaDateTime(boleto.created_at),
        paid_at: c.paid_at && brasiliaDateTime(c.paid_at),
        message: p.message,
        ...billet,
      },
    };
  }
  const card = p as CardPaymentRecord | null;
  return {
    charge_id: c.id,
    total: c.total_cents,
    status: c.status,
    reason: c.refusal_reason,
    custom_id: c.custom_id,
    created_at: brasiliaDateTime(c.created_at),
    notification_url: c.notification_url,
    checkout_url: checkoutUrl(caller, c),
    items: c.items,
    shippings: c.shippings,
    history: history.map((h) => ({ message: h.message, created_at: brasiliaDateTime(h.created_at) })),
    payment: card && {
      method: 'credit_card',
      paid_at: c.paid_at && brasiliaDateTime(c.paid_at),
      message: card.message,
      credit_card: {
        mask: card.card_mask,
        brand: card.brand,
        installments: card.installments,
        installment_value: card.installment_value,
        customer: card.customer,
        juridical_person: card.juridical_person,
        billing_address: card.billing_address,
        discount: card.discount_cents,
      },
    },
    refunds: refunds.map((r) => ({
      amount: r.amount_cents,
      partial: r.partial,
      status: r.status,
      created_at: brasiliaDateTime(r.created_at),
    })),
    refunded: c.refunded_cents,
  };
}

/**
 * Sandbox, before a settle: a charge whose issuer's answer (the `authorize` job) has not come yet gets it now,
 * so a settle right after `/pay` never races the job (which then finds nothing waiting and does nothing). Its
 * own transaction: a refusal is recorded even though the settle that follows is then refused.
 */
export async function answerWaitingPayment(sql: Sql, caller: BillingCaller, id: number): Promise<void> {
  const charge = await lockOwn(sql, caller, id);
  await answerCardPayment(sql, charge, caller.now, caller.faults);
}

/** Sandbox: confirm an approved charge now instead of at the end of the settlement delay. */
export async function settleNow(sql: Sql, caller: BillingCaller, id: number): Promise<void> {
  const charge = await lockOwn(sql, caller, id);
  requireStatus(charge, ['approved'], 'A confirmação');
  await confirmCardPayment(sql, charge, caller.now);
}
