/**
 * The lists of Open Finance Pix payments: by the period of their creation (`inicio`, `fim`, whole Brasília
 * days), narrowed by `status` and `identificador` (the payment's, or its idProprio), in numbered pages of
 * `quantidade` (1 to `LIMITS.ofPixPaymentsPerPage`). Each payment with its parcels' refunds (the received Pix's,
 * through the payment engine).
 */
import { brasiliaInstant } from '../../platform/calendar.ts';
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount } from '../../platform/money.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { refundsOf, type PaymentRefundRow } from '../payments/store.ts';
import { ofInvalid } from '../shared.ts';
import type { ListQuery, PaymentItem, RecurringItem } from './schemas.ts';
import { refundStatus } from './refund-outcome.ts';
import { parcelsOf, pixPaymentPage, type ParcelRow, type PixKind, type PixPaymentRow } from './store.ts';

const refundView = (r: PaymentRefundRow) => ({
  identificadorDevolucao: r.rtr_id,
  valor: formatAmount(r.amount_cents),
  status: refundStatus(r.status),
  dataCriacao: r.requested_at.toISOString(),
});

interface Page<T> {
  items: T[];
  total: number;
  porPagina: number;
  ultimo: string;
  proximo: string | null;
  anterior: string | null;
  atual: string;
}

async function page<T>(
  sql: Sql,
  caller: Caller,
  path: string,
  kinds: PixKind[],
  query: ListQuery,
  view: (row: PixPaymentRow, parcels: ParcelRow[], refunds: PaymentRefundRow[]) => T,
): Promise<Page<T>> {
  if (query.inicio > query.fim) throw ofInvalid('parametro_invalido', 'inicio', 'posterior a fim.');
  const size = query.quantidade === undefined ? LIMITS.ofPixPaymentsPerPage : Number(query.quantidade);
  if (size < 1 || size > LIMITS.ofPixPaymentsPerPage)
    throw ofInvalid('parametro_invalido', 'quantidade', `de 1 a ${LIMITS.ofPixPaymentsPerPage}.`);
  const pagina = query.pagina === undefined ? 1 : Number(query.pagina);
  if (pagina < 1) throw ofInvalid('parametro_invalido', 'pagina', 'as páginas contam a partir de 1.');
  const { rows, total } = await pixPaymentPage(
    sql,
    {
      accountId: caller.accountId,
      kinds,
      from: brasiliaInstant(query.inicio, '00:00:00.000'),
      to: brasiliaInstant(query.fim, '23:59:59.999'),
      status: query.status,
      identificador: query.identificador,
    },
    (pagina - 1) * size,
    size,
  );
  const parcels = await parcelsOf(
    sql,
    rows.map((r) => r.id),
  );
  const refunds = await refundsOf(
    sql,
    parcels.filter((p) => p.status === 'aceito').map((p) => p.end_to_end_id),
  );
  const pages = Math.max(1, Math.ceil(total / size));
  const link = (n: number) => {
    const params = new URLSearchParams(
      Object.entries({ ...query, quantidade: String(size), pagina: String(n) }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    return `${path}?${params}`;
  };
  return {
    items: rows.map((row) =>
      view(
        row,
        parcels.filter((p) => p.payment_id === row.id),
        refunds.filter((r) => parcels.some((p) => p.payment_id === row.id && p.end_to_end_id === r.end_to_end_id)),
      ),
    ),
    total,
    porPagina: size,
    ultimo: link(pages),
    proximo: pagina < pages ? link(pagina + 1) : null,
    anterior: pagina > 1 ? link(Math.min(pagina - 1, pages)) : null,
    atual: link(pagina),
  };
}

/** A one-parcel payment as the immediate, scheduled and biometric lists show it. */
function paymentItem(row: PixPaymentRow, parcels: ParcelRow[], refunds: PaymentRefundRow[]): PaymentItem {
  const parcel = parcels.at(-1);
  return {
    identificadorPagamento: row.identificador,
    ...(parcel && { endToEndId: parcel.end_to_end_id }),
    valor: formatAmount(row.amount_cents),
    status: row.status,
    ...(row.motivo !== null && { motivo: row.motivo }),
    dataCriacao: row.created_at.toISOString(),
    ...(row.kind === 'agendado' && { dataOperacao: row.dates[0] }),
    ...(row.id_proprio !== null && { idProprio: row.id_proprio }),
    ...(refunds.length && { devolucoes: refunds.map(refundView) }),
  };
}

function recurringItem(row: PixPaymentRow, parcels: ParcelRow[], refunds: PaymentRefundRow[]): RecurringItem {
  return {
    identificadorPagamento: row.identificador,
    valor: formatAmount(row.amount_cents),
    status: row.status,
    ...(row.motivo !== null && { motivo: row.motivo }),
    dataCriacao: row.created_at.toISOString(),
    ...(row.id_proprio !== null && { idProprio: row.id_proprio }),
    recorrencias: parcels.map((p) => ({
      endToEndId: p.end_to_end_id,
      valor: formatAmount(p.amount_cents),
      dataOperacao: p.data,
      status: p.status,
      ...(p.motivo !== null && { motivo: p.motivo }),
      devolucoes: refunds.filter((r) => r.end_to_end_id === p.end_to_end_id).map(refundView),
    })),
  };
}

const envelope = <T>({ items, ...links }: Page<T>) => ({ pagamentos: items, ...links });

/** GET /v1/pagamentos/pix: immediate payments (biometric ones have their own list). */
export const listImmediate = async (sql: Sql, caller: Caller, query: ListQuery) =>
  envelope(await page(sql, caller, '/v1/pagamentos/pix', ['imediato'], query, paymentItem));

export const listScheduled = async (sql: Sql, caller: Caller, query: ListQuery) =>
  envelope(await page(sql, caller, '/v1/pagamentos-agendados/pix', ['agendado'], query, paymentItem));

export const listRecurring = async (sql: Sql, caller: Caller, query: ListQuery) =>
  envelope(await page(sql, caller, '/v1/pagamentos-recorrentes/pix', ['recorrente'], query, recurringItem));

/** The SDK's ofListBiometricPixPayment reads the list as `vinculos`. */
export async function listBiometric(sql: Sql, caller: Caller, query: ListQuery) {
  const { items, ...links } = await page(
    sql,
    caller,
    '/v1/pagamentos-biometria/pix',
    ['biometria'],
    query,
    paymentItem,
  );
  return { vinculos: items, ...links };
}
