/**
 * The charge as the payer's institution sees it when it follows a dynamic QR code: Bacen CobPayload
 * (immediate) or CobVPayload (due). Whether a charge can be paid is decided by the payment engine's
 * own rule (`unpayableReason`), so what a payer is shown and what the service accepts never disagree.
 * How each case is answered is explained in docs/payload.md.
 */
import type { Sql } from '../../platform/db/database.ts';
import { ApiError, invalid, notFound } from '../../platform/errors.ts';
import { formatAmount, parseAmount } from '../../platform/money.ts';
import { findCharge, type ChargeRow } from '../charges/store.ts';
import type { CobBody } from '../cob/schemas.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import { dueAmountOn, lastPayableDate } from '../cobv/amount.ts';
import type { CobVBody } from '../cobv/schemas.ts';
import { findLocationByToken, type LinkedLocationRow, type TipoCob } from '../loc/store.ts';
import { unpayableReason } from '../payments/engine.ts';
import type { PaymentRefused } from '../payments/refusal.ts';
import { accountRecebedor } from '../shared/recebedor.ts';
import type { StatusCobranca } from '../shared/schemas.ts';
import { journeyRecurrence } from './rec.ts';

export const PAYLOAD_NOT_FOUND = 'CobPayloadNaoEncontrado';
export const PAYLOAD_INVALID = 'CobPayloadOperacaoInvalida' as const;

export interface PayloadRequest {
  token: string;
  now: Date;
  /** The service's public URL, for the address of a paired recurrence's payload (journey 3). */
  publicUrl: string;
  /** Data de pagamento pretendida (cobv), YYYY-MM-DD; default: today in Brasília. Ignored for cob. */
  DPP?: string;
  /** IBGE municipality code of the payer; its format is checked by the route, nothing else depends on it. */
  codMun?: string;
}

export interface ServedPayload {
  tipoCob: TipoCob;
  payload: Record<string, unknown>;
}

interface PayloadSource<B> {
  sql: Sql;
  charge: ChargeRow<B>;
  status: StatusCobranca;
  payable: boolean;
  request: PayloadRequest;
}

const notServing = () =>
  notFound('A cobrança em questão não foi encontrada para a location requisitada.', PAYLOAD_NOT_FOUND);

/** What both payloads share: the stored request fields, identity, status and the calendar with `apresentacao`. */
function basePayload<B extends { calendario: object }>({
  charge,
  status,
  request,
}: PayloadSource<B>): Record<string, unknown> {
  const { calendario, ...body } = charge.body;
  return {
    calendario: { criacao: charge.created_at.toISOString(), apresentacao: request.now.toISOString(), ...calendario },
    txid: charge.txid,
    revisao: charge.revisao,
    status,
    ...body,
  };
}

/**
 * Bacen CobVPayload (CobPayload is the base alone): the amount due on the intended payment date (DPP). For a payable charge a DPP
 * before today or past the last payable day is refused as the standard lists; a charge shown only for
 * information (paid, removed) is priced on its last payable day when the DPP lies beyond it.
 */
async function cobvPayload({
  sql,
  charge,
  status,
  payable,
  request,
}: PayloadSource<CobVBody>): Promise<Record<string, unknown>> {
  const today = brasiliaDate(request.now);
  const last = lastPayableDate(charge.body);
  const requested = request.DPP ?? today;
  if (payable && (requested < today || requested > last)) {
    const reason =
      requested < today
        ? `DPP anterior à data presente (${today}).`
        : `DPP posterior ao último dia de pagamento da cobrança (${last}).`;
    throw invalid(PAYLOAD_INVALID, 'A cobrança existe, mas a requisição é inválida.', [
      { property: 'DPP', reason, value: requested },
    ]);
  }
  const due = dueAmountOn(charge.body, requested > last ? last : requested);
  const component = (name: string, cents: number) => (cents > 0 ? { [name]: formatAmount(cents) } : {});
  return {
    ...basePayload({ sql, charge, status, payable, request }),
    recebedor: await accountRecebedor(sql, charge.account_id),
    valor: {
      original: formatAmount(due.originalCents),
      ...component('multa', due.multaCents),
      ...component('juros', due.jurosCents),
      ...component('abatimento', due.abatimentoCents),
      ...component('desconto', due.descontoCents),
      final: formatAmount(due.finalCents),
    },
  };
}

/** Bacen CobPayload, plus the recurrence a composite code (journey 3) pairs the charge with. */
async function cobPayload(source: PayloadSource<CobBody>): Promise<Record<string, unknown>> {
  const { sql, charge, request } = source;
  const recorrencia = await journeyRecurrence(sql, charge.account_id, charge.txid, request.publicUrl);
  return { ...basePayload(source), ...(recorrencia && { recorrencia }) };
}

async function keyRemovedAt(sql: Sql, accountId: number, chave: string): Promise<Date | null> {
  const { rows } = await sql.query<{ removed_at: Date | null }>(
    'select removed_at from pix_keys where chave = $1 and account_id = $2',
    [chave, accountId],
  );
  return rows[0]?.removed_at ?? null;
}

/** The charge a location serves as a payer reads it now: its status and whether it can still be paid. */
interface ServedCharge {
  location: LinkedLocationRow & { txid: string };
  charge: ChargeRow<CobBody | CobVBody>;
  now: Date;
  /** Expired (cob) or past its last payable day (cobv): the payload answers 410 for it. */
  expired: boolean;
  /** Why it cannot be paid now, if it cannot. */
  refused: PaymentRefused | undefined;
  status: StatusCobranca;
  payable: boolean;
}

/** undefined when the location is unknown or serves no charge now. */
async function servedCharge(
  sql: Sql,
  token: string,
  now: Date | ((accountId: number) => Date),
): Promise<ServedCharge | undefined> {
  const location = await findLocationByToken(sql, token);
  if (!location?.txid) return undefined;
  // A payer reads the charge on its receiver's clock (moved per account in the sandbox).
  const at = typeof now === 'function' ? now(location.account_id) : now;
  const charge = await findCharge<CobBody | CobVBody>(sql, location.account_id, location.tipo_cob, location.txid);
  if (!charge) return undefined;
  const refused = unpayableReason(
    { ...charge, key_removed_at: await keyRemovedAt(sql, charge.account_id, charge.chave) },
    at,
  );
  return {
    location: { ...location, txid: location.txid },
    charge,
    now: at,
    expired: refused?.code === 'cobranca_expirada',
    refused,
    status: refused?.code === 'chave_removida' ? 'REMOVIDA_PELO_PSP' : (charge.status as StatusCobranca),
    payable: !refused,
  };
}

/**
 * - no charge at the location: 404; expired (cob) or past its last payable day (cobv): 410, since the
 *   status must not reflect expiry (Bacen CobrancaStatus) and the location will never serve it again;
 * - receiving key removed: served with status REMOVIDA_PELO_PSP, the institution having withdrawn it;
 * - paid or removed by the receiver: served with its status (CONCLUIDA, REMOVIDA_PELO_USUARIO_RECEBEDOR).
 */
export async function chargePayload(
  sql: Sql,
  served: Omit<PayloadRequest, 'now'> & { now: Date | ((accountId: number) => Date) },
): Promise<ServedPayload> {
  const found = await servedCharge(sql, served.token, served.now);
  if (!found) throw notServing();
  const { location, charge, status, payable } = found;
  if (found.expired)
    throw new ApiError(410, PAYLOAD_NOT_FOUND, `${found.refused?.message} A location não a apresentará mais.`);
  const source = { sql, status, payable, request: { ...served, now: found.now } };
  const payload =
    location.tipo_cob === 'cob'
      ? await cobPayload({ ...source, charge: charge as ChargeRow<CobBody> })
      : await cobvPayload({ ...source, charge: charge as ChargeRow<CobVBody> });
  return { tipoCob: location.tipo_cob, payload };
}

/** What the QR page (`linkVisualizacao`) tells a payer about the charge: the same reading as the payload's. */
export interface ChargeSummary {
  txid: string;
  status: StatusCobranca;
  expired: boolean;
  /** cob: the original amount; cobv: what is due today (or on its last payable day, once past it). */
  amountCents: number;
  /** cob: the instant it expires; cobv: its due date and last payable date (YYYY-MM-DD). */
  expiresAt?: Date;
  dueDate?: string;
  lastPayableDate?: string;
}

export async function chargeSummary(
  sql: Sql,
  token: string,
  now: (accountId: number) => Date,
): Promise<ChargeSummary | undefined> {
  const found = await servedCharge(sql, token, now);
  if (!found) return undefined;
  const { charge, status, expired } = found;
  const common = { txid: charge.txid, status, expired };
  if (found.location.tipo_cob === 'cob') {
    const body = charge.body as CobBody;
    return {
      ...common,
      amountCents: parseAmount(body.valor.original),
      expiresAt: new Date(charge.created_at.getTime() + body.calendario.expiracao * 1000),
    };
  }
  const body = charge.body as CobVBody;
  const today = brasiliaDate(found.now);
  const last = lastPayableDate(body);
  return {
    ...common,
    amountCents: dueAmountOn(body, today > last ? last : today).finalCents,
    dueDate: body.calendario.dataDeVencimento,
    lastPayableDate: last,
  };
}
