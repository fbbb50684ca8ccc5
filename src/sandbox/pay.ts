/**
 * `POST /sandbox/pix/pay`: an integrator plays the payer, through the SPI boundary and the one payment engine as a
 * payer at another institution does (docs/spi.md, "The sandbox's institution").
 */
import type { Sql } from '../platform/db/database.ts';
import { invalid } from '../platform/errors.ts';
import { parseAmount } from '../platform/money.ts';
import { parseBrCode } from '../platform/brcode.ts';
import { amountDue, type PaymentTarget } from '../pix/payments/engine.ts';
import { pixView } from '../pix/received/view.ts';
import type { SpiNode } from '../spi/credit.ts';
import { accountOf, chargeToPay, type ChargeToPay } from './pay-store.ts';
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

/** What the payer's app reads before paying: where the pacs.008 goes, and the charge it pays, if any. */
async function payeeOf(
  sql: Sql,
  target: PaymentTarget,
): Promise<{ accountId?: number; order: Omit<PayerOrder, 'amountCents'>; charge?: ChargeToPay }> {
  if (target.kind === 'key')
    return {
      accountId: await accountOf(sql, { chave: target.chave }),
      order: {
        creditor: { chave: target.chave },
        ...(target.txid && { txid: target.txid }),
        initiation: target.fromStaticQrCode ? 'QRES' : 'DICT',
      },
    };
  if (target.kind === 'account')
    return {
      accountId: await accountOf(sql, { conta: target.conta }),
      order: { creditor: { conta: target.conta }, initiation: 'MANU' },
    };
  const charge = await chargeToPay(sql, target.kind === 'charge' ? target : { token: target.token });
  // No charge behind the txid or the location: the payer's app has nothing to pay, and no message leaves.
  if (!charge) throw refused('cobranca_inexistente', 'Nenhuma cobrança corresponde ao Pix.');
  return {
    accountId: charge.account_id,
    charge,
    order: {
      creditor: charge.chave ? { chave: charge.chave } : { conta: charge.conta },
      txid: charge.txid,
      initiation: 'QRDN',
    },
  };
}

/**
 * The integrator plays the payer: the sandbox payer's institution sends a pacs.008 into the node's inbound path
 * (spi-institution.ts), as another institution's gateway would, and the answer is shown in the engine's words.
 */
export async function sandboxPay(ctx: SpiNode, accountId: number, body: SandboxPayRequest) {
  const { target, fixedCents } = targetOf(accountId, body);
  const givenCents = body.valor ? parseAmount(body.valor) : fixedCents;
  if (givenCents === undefined && (target.kind === 'key' || target.kind === 'account')) {
    throw invalid(PAY_INVALID, 'Informe o valor do Pix.', [
      { property: 'valor', reason: 'valor obrigatório para pagamento a uma chave ou conta.' },
    ]);
  }
  if (fixedCents !== undefined && givenCents !== fixedCents) {
    throw invalid(PAY_INVALID, 'O valor difere do fixado no BR Code.', [
      { property: 'valor', reason: 'valor diferente do BR Code.', value: body.valor },
    ]);
  }
  const payee = await payeeOf(ctx.db, target);
  // The payment happens on the receiving account's clock (its charge's expiry and due date), whoever pays.
  const now = ctx.clock.forAccount(payee.accountId).now();
  // Neither given: the amount the charge asks.
  const amountCents = givenCents ?? amountDue(payee.charge!, now).cents;
  if (amountCents <= 0) throw refused('valor_invalido', 'O valor do Pix deve ser positivo.');
  const payer: { nome: string; cpf?: string; cnpj?: string } = body.pagador ?? FICTITIOUS_PAYER;
  const order = { ...payee.order, amountCents, payer, ...(body.infoPagador && { infoPagador: body.infoPagador }) };
  const outcome = await payerPays(ctx, order, now);
  // Received a moment ago: no refunds yet.
  if (outcome.status === 'ACSP') return pixView(outcome.credit.received, []);
  if (outcome.status === 'RJCT') {
    const why = outcome.credit?.refused ?? { code: outcome.reason.code, message: outcome.reason.info ?? '' };
    throw refused(why.code, why.message);
  }
  // A participant's key: nothing is credited until the participant confirms (docs/participants.md).
  const { held } = outcome.credit;
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
