/**
 * `POST /sandbox/pix/pay`: an integrator plays the payer, through the one payment engine; to a key or an account
 * through the SPI boundary, as a payer at another institution does (docs/spi.md, "The sandbox's institution").
 */
import type { Sql } from '../platform/db/database.ts';
import { invalid } from '../platform/errors.ts';
import { parseAmount } from '../platform/money.ts';
import { parseBrCode } from '../platform/brcode.ts';
import { receiveOrHold, type PaymentTarget } from '../pix/payments/engine.ts';
import { PaymentRefused } from '../pix/payments/refusal.ts';
import { pixView } from '../pix/received/view.ts';
import type { SpiNode } from '../spi/credit.ts';
import { accountOf } from './pay-store.ts';
import { SANDBOX_PAY_ORIGIN } from './payer.ts';
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
type Reception = Awaited<ReturnType<typeof receiveOrHold>>;

/**
 * A key (by the key, or a static QR code) or an account: the sandbox payer's institution sends a pacs.008 into the
 * node's inbound path (spi-institution.ts), as another institution's gateway would; the refusal is shown in the
 * engine's words.
 */
async function payThroughBoundary(
  ctx: SpiNode,
  target: Extract<PaymentTarget, { kind: 'key' | 'account' }>,
  incoming: Incoming & { amountCents: number },
): Promise<Reception> {
  const accountId = await accountOf(ctx.db, target.kind === 'key' ? { chave: target.chave } : { conta: target.conta });
  const now = ctx.clock.forAccount(accountId).now();
  if (incoming.amountCents <= 0) throw refused('valor_invalido', 'O valor do Pix deve ser positivo.');
  const order: PayerOrder =
    target.kind === 'key'
      ? {
          creditor: { chave: target.chave },
          ...(target.txid && { txid: target.txid }),
          initiation: target.fromStaticQrCode ? 'QRES' : 'DICT',
          ...incoming,
        }
      : { creditor: { conta: target.conta }, initiation: 'MANU', ...incoming };
  const outcome = await payerPays(ctx, order, now);
  if (outcome.status === 'ACSP') return { received: outcome.credit.received };
  if (outcome.status === 'held') return { held: outcome.credit.held };
  const why = outcome.credit?.refused ?? { code: outcome.reason.code, message: outcome.reason.info ?? '' };
  throw refused(why.code, why.message);
}

/**
 * A charge (its txid, or a dynamic QR code's location): the engine's settlement path in this process, its
 * coalesced read and write (docs/spi.md, "What is not built": the inbound path would take a transaction each).
 * Neither amount given: the amount the charge asks, decided by the engine with the rest of the payment.
 */
async function payCharge(
  ctx: SpiNode,
  target: Extract<PaymentTarget, { kind: 'charge' | 'location' }>,
  incoming: Incoming,
): Promise<Reception> {
  const accountId = target.kind === 'charge' ? target.accountId : await accountOf(ctx.db, { token: target.token });
  try {
    return await receiveOrHold(ctx.db, ctx.clock.forAccount(accountId).now(), {
      target,
      ...incoming,
      origin: SANDBOX_PAY_ORIGIN,
    });
  } catch (error) {
    if (error instanceof PaymentRefused) throw refused(error.code, error.message);
    throw error;
  }
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
  const incoming = { payer, ...(body.infoPagador && { infoPagador: body.infoPagador }) };
  let reception: Reception;
  if (target.kind === 'charge' || target.kind === 'location') {
    reception = await payCharge(ctx, target, { ...incoming, amountCents });
  } else if (amountCents === undefined) {
    throw invalid(PAY_INVALID, 'Informe o valor do Pix.', [
      { property: 'valor', reason: 'valor obrigatório para pagamento a uma chave ou conta.' },
    ]);
  } else {
    reception = await payThroughBoundary(ctx, target, { ...incoming, amountCents });
  }
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
        origin: target.kind === 'charge' || target.kind === 'location' ? SANDBOX_PAY_ORIGIN : 'spi',
      },
      [],
    ),
    status: 'WAITING' as const,
  };
}
