/** `POST /sandbox/pix/pay`: an integrator plays the payer, through the same engine as real payments. */
import type { Sql } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import { invalid } from '../platform/errors.ts';
import { parseAmount } from '../platform/money.ts';
import { parseBrCode } from '../platform/brcode.ts';
import { receiveOrHold, type PaymentTarget } from '../pix/payments/engine.ts';
import { PaymentRefused } from '../pix/payments/refusal.ts';
import { pixView } from '../pix/received/view.ts';
import { FICTITIOUS_PAYER } from './settlement.ts';
import { SANDBOX_PAY_ORIGIN } from './payer.ts';

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

/**
 * The account a payment goes to, if it exists: the payment happens on that account's clock (its charge's
 * expiry and due date), whoever plays the payer. A charge by txid is the caller's own: no query.
 */
async function receivingAccountOf(sql: Sql, target: PaymentTarget): Promise<number | undefined> {
  if (target.kind === 'charge') return target.accountId;
  const [query, param] =
    target.kind === 'location'
      ? ['select account_id from locations where token = $1', target.token]
      : target.kind === 'key'
        ? ['select account_id from pix_keys where chave = $1', target.chave]
        : ['select id as account_id from accounts where conta = $1', target.conta];
  const { rows } = await sql.query<{ account_id: string | number }>(query, [param]);
  return rows[0] && Number(rows[0].account_id);
}

export async function sandboxPay(sql: Sql, accountId: number, clock: Clock, body: SandboxPayRequest) {
  const { target, fixedCents } = targetOf(accountId, body);
  const now = clock.forAccount(await receivingAccountOf(sql, target)).now();
  // Neither given: the amount the charge asks, decided by the engine with the rest of the payment.
  const amountCents = body.valor ? parseAmount(body.valor) : fixedCents;
  if (amountCents === undefined && (target.kind === 'key' || target.kind === 'account')) {
    throw invalid(PAY_INVALID, 'Informe o valor do Pix.', [
      { property: 'valor', reason: 'valor obrigatório para pagamento a uma chave ou conta.' },
    ]);
  }
  if (fixedCents !== undefined && amountCents !== fixedCents) {
    throw invalid(PAY_INVALID, 'O valor difere do fixado no BR Code.', [
      { property: 'valor', reason: 'valor diferente do BR Code.', value: body.valor },
    ]);
  }
  try {
    // No amount and no charge: the engine refuses with cobranca_inexistente, as for any unknown target.
    const payer: { nome: string; cpf?: string; cnpj?: string } = body.pagador ?? FICTITIOUS_PAYER;
    const reception = await receiveOrHold(sql, now, {
      target,
      amountCents,
      payer,
      infoPagador: body.infoPagador,
      origin: SANDBOX_PAY_ORIGIN,
    });
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
          origin: SANDBOX_PAY_ORIGIN,
        },
        [],
      ),
      status: 'WAITING' as const,
    };
  } catch (error) {
    if (error instanceof PaymentRefused)
      throw invalid('PixRecusado', error.message, [{ property: 'pagamento', reason: error.code }]);
    throw error;
  }
}
