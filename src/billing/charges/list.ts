/** GET /v1/charges (listCharges): the account's charges of one type between two dates, filtered and paged. */
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { brasiliaDateTime, brasiliaDayStart, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import { billingError } from '../shared/errors.ts';
import type { BillingCaller } from '../shared/caller.ts';
import { boletosOf } from '../boletos/store.ts';
import { boletoConfigurations, boletoLink } from '../boletos/view.ts';
import { formattedLine } from '../boletos/barcode.ts';
import type { ChargeListQueryInput } from '../boletos/schemas.ts';
import { listChargesPage } from './list-store.ts';

export async function listCharges(sql: Sql, caller: BillingCaller, q: ChargeListQueryInput) {
  const begin = toEpochDay(q.begin_date);
  const end = toEpochDay(q.end_date);
  if (end < begin) throw billingError(400, 'validation_error', 'end_date: deve ser igual ou posterior a begin_date.');
  if (end - begin >= LIMITS.billingChargeListRangeMaxDays)
    throw billingError(
      400,
      'validation_error',
      `end_date: no máximo ${LIMITS.billingChargeListRangeMaxDays} dias após begin_date.`,
    );
  const limit = q.limit ?? LIMITS.billingChargeListLimitDefault;
  const dateOf = q.date_of ?? 'creation';
  const rows = await listChargesPage(sql, {
    accountId: caller.accountId,
    type: q.charge_type,
    dateOf,
    from: dateOf === 'expired' ? q.begin_date : brasiliaDayStart(q.begin_date),
    to: dateOf === 'expired' ? fromEpochDay(end + 1) : brasiliaDayStart(fromEpochDay(end + 1)),
    status: q.status,
    document: q.customer_document,
    customId: q.custom_id,
    valueCents: q.value,
    limit,
    offset: q.offset ?? ((q.page ?? 1) - 1) * limit,
  });
  const boletos = await boletosOf(
    sql,
    rows.filter((r) => r.boleto_id !== null).map((r) => Number(r.id)),
  );
  return rows.map((c) => {
    const customer = (c.payment && 'customer' in c.payment ? c.payment.customer : {}) as Record<string, any>;
    const boleto = boletos.get(Number(c.id));
    const billet = boleto && {
      barcode: formattedLine(boleto.barcode),
      link: boletoLink(caller, boleto),
      expire_at: boleto.due_date,
      pdf: { charge: `${boletoLink(caller, boleto)}.pdf` },
    };
    return {
      id: Number(c.id),
      total: Number(c.total_cents),
      status: c.status,
      custom_id: c.custom_id,
      created_at: brasiliaDateTime(c.created_at),
      customer: {
        phone_number: customer.phone_number ?? null,
        ...(customer.juridical_person
          ? { cnpj: customer.juridical_person.cnpj, corporate_name: customer.juridical_person.corporate_name }
          : { cpf: customer.cpf, name: customer.name }),
      },
      payment: c.payment && {
        payment_method: c.carnet_id ? 'carnet' : c.payment.method,
        paid_at: c.paid_at && brasiliaDateTime(c.paid_at),
        ...(billet &&
          (c.carnet_id
            ? { carnet: { parcel: c.parcel, ...billet, configurations: boletoConfigurations(boleto!) } }
            : { banking_billet: billet })),
      },
    };
  });
}
