/**
 * Carnês (docs/billing.md, "Carnês"): a booklet of 1 to 12 monthly boletos. The carnê is a row of kind 'carnet'
 * (its token, history and notification delivery are those of charges); each parcel is a charge with its own
 * boleto and Pix QR, issued by the boleto code, so paying, settling, canceling and re-dating a parcel are the
 * boleto's rules. Whole-carnê operations lock every parcel (its Pix charge first) before the carnê, the order
 * a single parcel's payment takes. No HTTP here.
 */
import { newNotificationToken, newPageToken } from '../shared/url-tokens.ts';
import type { Sql } from '../../platform/db/database.ts';
import { brasiliaDateTime, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import { findAccount } from '../../accounts/store.ts';
import { billingError, carnetNotFound } from '../shared/errors.ts';
import type { BillingCaller } from '../shared/caller.ts';
import { grossTotal } from '../charges/payment.ts';
import { checkNotificationUrl } from '../charges/service.ts';
import {
  findCharge,
  historyOf,
  insertCharge,
  lockCharge,
  parcelsOf,
  updateCharge,
  type ChargeRow,
} from '../charges/store.ts';
import { transition } from '../charges/transitions.ts';
import { issueBoleto } from '../boletos/issue.ts';
import { cancelBoleto, settleBoleto, updateBillet } from '../boletos/service.ts';
import { boletosOf, lockPixChargeOf, type BoletoRow } from '../boletos/store.ts';
import { boletoFields } from '../boletos/view.ts';
import { boletoPdf } from '../boletos/pdf.ts';
import { mailBoletos } from '../boletos/mail.ts';
import type { Mailer } from '../mail/service.ts';
import type { CarnetCreateInput } from './schemas.ts';

/** The k-th monthly due date after `first` (k from 0): the same day of the month, or the month's last day. */
export function monthlyDueDate(first: string, k: number): string {
  const [year, month, day] = first.split('-').map(Number) as [number, number, number];
  const target = new Date(Date.UTC(year, month - 1 + k, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  return fromEpochDay(toEpochDay(target.toISOString().slice(0, 10)) + Math.min(day, lastDay) - 1);
}

/** Each parcel's gross: the items' total, or (split_items) that total divided, the cents left over on parcel 1. */
function parcelGross(total: number, repeats: number, split: boolean): number[] {
  if (!split) return Array.from({ length: repeats }, () => total);
  const each = Math.floor(total / repeats);
  if (each < 1) throw billingError(400, 'validation_error', 'repeats: o total não cobre um centavo por parcela.');
  return Array.from({ length: repeats }, (_, k) => (k === 0 ? total - each * (repeats - 1) : each));
}

export async function createCarnet(sql: Sql, caller: BillingCaller, body: CarnetCreateInput): Promise<ChargeRow> {
  checkNotificationUrl(body.metadata?.notification_url);
  const items = body.items.map((i) => ({ ...i, amount: i.amount ?? 1 }));
  if (items.some((i) => i.marketplace))
    throw billingError(400, 'validation_error', 'items.marketplace: carnês não têm repasses.');
  const gross = parcelGross(grossTotal({ items, shippings: [] }), body.repeats, body.split_items ?? false);
  const base = {
    account_id: caller.accountId,
    items,
    shippings: [],
    custom_id: body.metadata?.custom_id ?? null,
    marketplace: false,
  };
  const carnet = await insertCharge(
    sql,
    {
      ...base,
      kind: 'carnet',
      status: 'active',
      total_cents: gross.reduce((a, b) => a + b, 0),
      notification_url: body.metadata?.notification_url ?? null,
      notification_token: newNotificationToken(),
      checkout_token: newPageToken(),
    },
    caller.now,
  );
  await updateCharge(
    sql,
    carnet.id,
    { payment: { method: 'carnet', repeats: body.repeats, split_items: body.split_items ?? false } },
    caller.now,
  );
  await transition(sql, carnet, 'none', 'active', caller.now);
  const { items: _items, repeats: _repeats, split_items: _split, metadata: _metadata, expire_at, ...terms } = body;
  for (const [k, cents] of gross.entries()) {
    const parcel = await insertCharge(
      sql,
      {
        ...base,
        status: 'new',
        total_cents: cents,
        notification_url: null,
        notification_token: newNotificationToken(),
        checkout_token: newPageToken(),
        carnet_id: carnet.id,
        parcel: k + 1,
      },
      caller.now,
    );
    await transition(sql, parcel, 'none', 'new', caller.now);
    await issueBoleto(sql, caller, parcel, { ...terms, expire_at: monthlyDueDate(expire_at, k) });
  }
  return carnet;
}

const carnetLink = (caller: BillingCaller, carnet: ChargeRow) => `${caller.pagesUrl}/carne/${carnet.checkout_token}`;

/** The answer of createCarnet, and the core of detailCarnet: the carnê's links and each parcel's boleto. */
export async function carnetView(sql: Sql, caller: BillingCaller, carnet: ChargeRow) {
  const parcels = await parcelsOf(sql, carnet.id);
  const boletos = await boletosOf(
    sql,
    parcels.map((p) => p.id),
  );
  const link = carnetLink(caller, carnet);
  return {
    carnet_id: carnet.id,
    status: carnet.status,
    cover: link,
    link,
    carnet_link: link,
    pdf: { carnet: `${link}.pdf`, cover: `${link}.pdf` },
    charges: await Promise.all(
      parcels.map(async (p) => {
        const fields = await boletoFields(caller, boletos.get(Number(p.id))!);
        return {
          charge_id: Number(p.id),
          parcel: p.parcel!,
          status: p.status,
          value: Number(p.total_cents),
          url: fields.link,
          parcel_link: fields.link,
          ...fields,
        };
      }),
    ),
  };
}

export async function carnetDetail(sql: Sql, caller: BillingCaller, id: number) {
  const carnet = await findCharge(sql, { id, accountId: caller.accountId, kind: 'carnet' });
  if (!carnet) throw carnetNotFound();
  const history = await historyOf(sql, carnet.id);
  const record = carnet.payment as { repeats: number; split_items: boolean };
  return {
    ...(await carnetView(sql, caller, carnet)),
    repeats: record.repeats,
    value: Number(carnet.total_cents),
    custom_id: carnet.custom_id,
    notification_url: carnet.notification_url,
    split_items: record.split_items,
    created_at: brasiliaDateTime(carnet.created_at),
    history: history.map((h) => ({ message: h.message, created_at: brasiliaDateTime(h.created_at) })),
  };
}

/** The carnê's parcels with their boletos, each Pix charge then parcel locked (the payment order), then the carnê. */
async function lockParcels(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  only?: number,
): Promise<{ parcel: ChargeRow; boleto: BoletoRow }[]> {
  const carnet = await lockCharge(sql, { id, accountId: caller.accountId, kind: 'carnet' });
  if (!carnet) throw carnetNotFound();
  const all = (await parcelsOf(sql, id)).filter((p) => only === undefined || p.parcel === only);
  if (only !== undefined && !all.length)
    throw billingError(404, 'parcel_not_found', `O carnê ${id} não tem a parcela ${only}.`);
  const locked: ChargeRow[] = [];
  for (const p of all) {
    await lockPixChargeOf(sql, p.id);
    locked.push((await lockCharge(sql, { id: p.id }))!);
  }
  const boletos = await boletosOf(
    sql,
    locked.map((p) => p.id),
  );
  return locked.map((parcel) => ({ parcel, boleto: boletos.get(Number(parcel.id))! }));
}

const OPEN = ['waiting', 'unpaid'];

/** settleCarnet / settleCarnetParcel: open parcels marked paid by hand. */
export async function settleCarnet(sql: Sql, caller: BillingCaller, id: number, parcel?: number): Promise<void> {
  const parcels = await lockParcels(sql, caller, id, parcel);
  for (const { parcel: p, boleto } of parcels)
    if (parcel !== undefined || OPEN.includes(p.status)) await settleBoleto(sql, p, boleto, caller.now);
}

/** cancelCarnet / cancelCarnetParcel: open parcels canceled, their Pix QRs withdrawn. */
export async function cancelCarnet(sql: Sql, caller: BillingCaller, id: number, parcel?: number): Promise<void> {
  const parcels = await lockParcels(sql, caller, id, parcel);
  for (const { parcel: p, boleto } of parcels)
    if (parcel !== undefined || OPEN.includes(p.status)) await cancelBoleto(sql, p, boleto, caller.now);
}

/** updateCarnetParcel(s): new due dates, each a boleto's updateBillet (a new barcode and QR). */
export async function updateParcels(
  sql: Sql,
  caller: BillingCaller,
  id: number,
  changes: { parcel: number; expire_at: string }[],
): Promise<void> {
  for (const change of changes) {
    const [{ parcel }] = await lockParcels(sql, caller, id, change.parcel);
    await updateBillet(sql, caller, parcel.id, change.expire_at);
  }
}

/** sendCarnetEmail / sendCarnetParcelEmail: the open parcels (or the one) in one e-mail. */
export async function mailCarnet(
  sql: Sql,
  caller: BillingCaller,
  mailer: Mailer,
  id: number,
  email: string,
  parcel?: number,
): Promise<void> {
  const parcels = (await lockParcels(sql, caller, id, parcel)).filter(({ parcel: p }) => OPEN.includes(p.status));
  if (!parcels.length) throw billingError(400, 'invalid_charge_status', 'Nenhuma parcela em aberto para enviar.');
  await mailBoletos(
    sql,
    caller,
    mailer,
    email,
    parcels.map((p) => p.boleto),
    parcel === undefined ? `carnet:${id}` : `charge:${parcels[0]!.parcel.id}`,
  );
}

/** The carnê's PDF (every parcel) by its link token, or undefined. */
export async function carnetPdfByLink(sql: Sql, linkToken: string): Promise<Uint8Array | undefined> {
  const carnet = await findCharge(sql, { checkoutToken: linkToken, kind: 'carnet' });
  if (!carnet) return undefined;
  const parcels = await parcelsOf(sql, carnet.id);
  const boletos = await boletosOf(
    sql,
    parcels.map((p) => p.id),
  );
  return boletoPdf(
    parcels.map((p) => boletos.get(Number(p.id))!),
    (await findAccount(sql, carnet.account_id))!,
    { carnet: true },
  );
}
