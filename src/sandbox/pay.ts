/**
 * `POST /sandbox/pix/pay` (and the console's "Pagar"): an integrator plays the payer, through the SPI boundary and
 * the one payment engine, as a payer at another institution does (docs/spi.md, "The sandbox's institution").
 */
import type { Sql } from '../platform/db/database.ts';
import { invalid } from '../platform/errors.ts';
import { parseAmount } from '../platform/money.ts';
import { parseBrCode } from '../platform/brcode.ts';
import { amountDue, type PaymentTarget, type Reception } from '../pix/payments/engine.ts';
import { settlementReaderFor } from '../pix/payments/settlement-batcher.ts';
import { pixView } from '../pix/received/view.ts';
import type { SenderReads, SpiNode } from '../spi/credit.ts';
import { accountOf, chargeToPay } from './pay-store.ts';
import { FICTITIOUS_PAYER, payerPays, type PayerOrder } from './spi-institution.ts';

export interface SandboxPayRequest {
  txid?: string;
  pixCopiaECola?: string;
  chave?: string;
  /** Bank data: the receiving account's number (account settings receberSemChave). */
  conta?: string;
  valor?: string;
  pagador?: { nome: string; cpf?: string; cnpj?: string };
  infoPagador?: string;
}

const PAY_INVALID = 'PagamentoInvalido';

/** What the payer's app would read from the request: the target and the amount it fixes, if any. */
function targetOf(accountId: number, body: SandboxPayRequest): { target: PaymentTarget; fixedCents?: number } {
  const given = [body.txid, body.pixCopiaECola, body.chave, body.conta].filter((v) => v !== undefined).length;
  if (given !== 1)
    throw invalid(PAY_INVALID, 'Informe exatamente um de txid, pixCopiaECola, chave ou conta.', [
      { property: 'txid', reason: 'um e apenas um destino.' },
    ]);
  if (body.txid) return { target: { kind: 'charge', accountId, txid: body.txid } };
  if (body.chave) return { target: { kind: 'key', chave: body.chave } };
  if (body.conta) return { target: { kind: 'account', conta: body.conta } };
  let code: ReturnType<typeof parseBrCode>;
  try {
    code = parseBrCode(body.pixCopiaECola!.trim());
  } catch {
    code = { valid: false } as ReturnType<typeof parseBrCode>;
  }
  if (!code.valid)
    throw invalid(PAY_INVALID, 'pixCopiaECola não é um BR Code válido.', [
      { property: 'pixCopiaECola', reason: 'BR Code inválido (estrutura ou CRC).' },
    ]);
  const url = code.merchantAccount.get('25');
  if (url) return { target: { kind: 'location', token: url.split('/').pop()! } };
  const chave = code.merchantAccount.get('01');
  if (!chave)
    throw invalid(PAY_INVALID, 'O BR Code não tem chave nem location.', [
      { property: 'pixCopiaECola', reason: 'sem chave.' },
    ]);
  const txid = code.additionalData.get('05');
  const amount = code.fields.get('54');
  return {
    target: { kind: 'key', chave, txid: txid && txid !== '***' ? txid : undefined, fromStaticQrCode: true },
    fixedCents: amount ? parseAmount(Number(amount).toFixed(2)) : undefined,
  };
}

const refused = (code: string, message: string) =>
  invalid('PixRecusado', message, [{ property: 'pagamento', reason: code }]);

type Payer = { nome: string; cpf?: string; cnpj?: string };
type Incoming = { amountCents: number | undefined; payer: Payer; infoPagador?: string };

/**
 * What the payer's app reads before it pays, and the order it gives its institution: to a key (by the key,
 * `DICT`, or a static QR code, `QRES`) or an account (`MANU`), the amount given; to a charge (its txid, or a
 * dynamic QR code's location, `QRDN`), the charge's key and txid, for the amount given or else the amount the
 * charge asks now (a cobv's with its juros, multa and desconto). A txid or a location with no charge behind it
 * is refused before any message leaves, as an app would. The payment happens on the receiving account's clock.
 */
async function orderOf(
  sql: Sql,
  clock: SpiNode['clock'],
  target: PaymentTarget,
  incoming: Incoming,
): Promise<{ order: PayerOrder; now: Date; reads?: SenderReads }> {
  const { amountCents: givenCents, ...payer } = incoming;
  if (target.kind === 'charge' || target.kind === 'location') {
    // By txid, on the engine's coalesced charge read, which the payments in flight share; the node's inbound path
    // is handed that read rather than reading the charge again (docs/performance.md, session 15).
    const read = target.kind === 'charge' ? await settlementReaderFor(sql).submit(target) : undefined;
    const charge = target.kind === 'charge' ? read : await chargeToPay(sql, { token: target.token });
    if (!charge) throw refused('cobranca_inexistente', 'Nenhuma cobrança corresponde ao Pix.');
    const now = clock.forAccount(charge.account_id).now();
    const amountCents = givenCents ?? amountDue(charge, now).cents;
    return {
      order: { creditor: { chave: charge.chave }, txid: charge.txid, initiation: 'QRDN', amountCents, ...payer },
      now,
      ...(read && { reads: { charge: read } }),
    };
  }
  if (givenCents === undefined)
    throw invalid(PAY_INVALID, 'Informe o valor do Pix.', [
      { property: 'valor', reason: 'valor obrigatório para pagamento a uma chave ou conta.' },
    ]);
  const accountId = await accountOf(sql, target.kind === 'key' ? { chave: target.chave } : { conta: target.conta });
  const order: PayerOrder =
    target.kind === 'key'
      ? {
          creditor: { chave: target.chave },
          ...(target.txid && { txid: target.txid }),
          initiation: target.fromStaticQrCode ? 'QRES' : 'DICT',
          amountCents: givenCents,
          ...payer,
        }
      : { creditor: { conta: target.conta }, initiation: 'MANU', amountCents: givenCents, ...payer };
  return { order, now: clock.forAccount(accountId).now() };
}

/**
 * The sandbox payer's institution sends the order's pacs.008 into the node's inbound path (spi-institution.ts), as
 * another institution's gateway would; the refusal is shown in the engine's words.
 */
async function payThroughBoundary(
  ctx: SpiNode,
  { order, now, reads }: { order: PayerOrder; now: Date; reads?: SenderReads },
): Promise<Reception> {
  if (order.amountCents <= 0) throw refused('valor_invalido', 'O valor do Pix deve ser positivo.');
  const outcome = await payerPays(ctx, order, now, reads);
  if (outcome.status === 'ACSP') return { received: outcome.credit.received };
  if (outcome.status === 'held') return { held: outcome.credit.held };
  const why = outcome.credit?.refused ?? { code: outcome.reason.code, message: outcome.reason.info ?? '' };
  throw refused(why.code, why.message);
}

/** The integrator plays the payer; the payment happens on the receiving account's clock, whoever pays. */
export async function sandboxPay(ctx: SpiNode, accountId: number, body: SandboxPayRequest) {
  const { target, fixedCents } = targetOf(accountId, body);
  const amountCents = body.valor ? parseAmount(body.valor) : fixedCents;
  if (fixedCents !== undefined && amountCents !== fixedCents) {
    throw invalid(PAY_INVALID, 'O valor difere do fixado no BR Code.', [
      { property: 'valor', reason: 'valor diferente do BR Code.', value: body.valor },
    ]);
  }
  const payer: Payer = body.pagador ?? FICTITIOUS_PAYER;
  const incoming = { amountCents, payer, ...(body.infoPagador && { infoPagador: body.infoPagador }) };
  const reception = await payThroughBoundary(ctx, await orderOf(ctx.db, ctx.clock, target, incoming));
  // Received a moment ago: no refunds yet.
  if (reception.received) return pixView(reception.received, []);
  // A participant's key: nothing is credited until the participant confirms (docs/participants.md).
  const { held } = reception;
  return {
    ...pixView(
      {
        end_to_end_id: held.endToEndId,
        account_id: held.accountId,
        charge_id: null,
        txid: target.kind === 'key' ? (target.txid ?? null) : null,
        chave: held.chave,
        amount_cents: held.amountCents,
        received_at: held.receivedAt,
        pagador_cpf: payer.cpf ?? null,
        pagador_cnpj: payer.cnpj ?? null,
        pagador_nome: payer.nome,
        info_pagador: body.infoPagador ?? null,
        components: null,
        origin: 'spi',
      },
      [],
    ),
    status: 'WAITING' as const,
  };
}
