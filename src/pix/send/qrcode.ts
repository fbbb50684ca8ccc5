/**
 * `PUT /v2/gn/pix/:idEnvio/qrcode`: paying a BR Code, as a payer's institution would.
 *
 * Reading (before the transaction, so no lock waits on the network): the code's structure and CRC; a static
 * code gives its key, amount and txid; a dynamic one is fetched from its location over HTTPS and its JWS is
 * verified against the JWK Set its `jku` names (which must be on the location's host). Only locations of
 * this pixd are fetched: fetching addresses taken from a caller's text would let callers aim the server at
 * anything, and no connector to other institutions exists (docs/sending.md).
 *
 * Paying: the amount the code states (for a due charge, the amount the location serves for today); the
 * charge, when it is one of this pixd, is checked at once with the engine's rules (paid, removed, expired:
 * named errors) and paid at settlement through the engine, which concludes it, distributes its split and
 * notifies its receiver.
 */
import https from 'node:https';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import type { AppContext } from '../../platform/context.ts';
import type { GroupErrorName } from '../../platform/errors.ts';
import type { Sql } from '../../platform/db/database.ts';
import { PIX_GUI, parseBrCode } from '../../platform/brcode.ts';
import { parseAmount } from '../../platform/money.ts';
import { unpayableReason } from '../payments/engine.ts';
import { tokenFromAddress } from '../loc/store.ts';
import type { Caller } from '../shared/caller.ts';
import { SendRefused } from './external.ts';
import type { QrCodePayRequest } from './schemas.ts';
import { isPixKey, startSend, type Destination, type SendDeps } from './service.ts';
import { holderIdentity } from './store.ts';
import { chargeAtLocation, keyOwner } from './store.ts';

const PROPERTY = 'pixCopiaECola';
const FETCH_TIMEOUT_MS = 5_000;

export type ReadCode =
  | { kind: 'static'; chave: string; txid?: string; amountCents?: number }
  | { kind: 'dynamic'; token: string; amountCents: number; payload: Record<string, unknown> };

const refuse = (code: GroupErrorName<'named'>, message: string) => new SendRefused(code, message, PROPERTY);

function fetchText(url: string, caPem: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { ca: caPem, timeout: FETCH_TIMEOUT_MS }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/**
 * Verifies a location's JWS as a payer's institution does: the `jku` on the location's host, the key named by
 * `kid` in that set, the signature. Answers the payload; any failure is `qrcode_assinatura_invalida`.
 */
export async function verifyPayloadJws(
  jws: string,
  locationHost: string,
  fetchJwks: (jku: string) => Promise<JSONWebKeySet>,
): Promise<Record<string, unknown>> {
  const invalidSignature = (why: string) =>
    refuse('qrcode_assinatura_invalida', `A assinatura do payload da location não confere: ${why}.`);
  let jku: URL;
  try {
    const header = decodeProtectedHeader(jws);
    jku = new URL(String(header.jku));
  } catch {
    throw invalidSignature('cabeçalho JWS ilegível ou sem jku');
  }
  if (jku.protocol !== 'https:' || jku.host.toLowerCase() !== locationHost.toLowerCase())
    throw invalidSignature('jku fora do domínio da location');
  let keys: JSONWebKeySet;
  try {
    keys = await fetchJwks(jku.toString());
  } catch {
    throw invalidSignature('JWKS inacessível');
  }
  try {
    const { payload } = await compactVerify(jws, createLocalJWKSet(keys));
    return JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
  } catch {
    throw invalidSignature('assinatura inválida');
  }
}

/** The amount a served payload states: `valor.original` (cob) or `valor.final` (cobv, for the date asked). */
function payloadAmount(payload: Record<string, unknown>): number {
  const valor = payload.valor as { original?: string; final?: string; modalidadeAlteracao?: number } | undefined;
  const text = valor?.final ?? valor?.original;
  if (!text || !/^\d{1,10}\.\d{2}$/.test(text) || parseAmount(text) === 0)
    throw refuse('qrcode_sem_valor', 'O payload da cobrança não fixa um valor a pagar.');
  return parseAmount(text);
}

/** Reads a BR Code: structure and CRC, and for a dynamic code the location's verified payload. */
export function qrCodeReader(ctx: AppContext) {
  const caPem = ctx.pki.ca.certPem;
  const fetchJwks = async (jku: string) => {
    const res = await fetchText(jku, caPem);
    if (res.status !== 200) throw new Error(`JWKS ${res.status}`);
    return JSON.parse(res.text) as JSONWebKeySet;
  };
  return async (pixCopiaECola: string): Promise<ReadCode> => {
    let parsed: ReturnType<typeof parseBrCode>;
    try {
      parsed = parseBrCode(pixCopiaECola.trim());
    } catch {
      throw refuse('qrcode_invalido', 'O pixCopiaECola não é um BR Code válido.');
    }
    if (!parsed.valid)
      throw refuse('qrcode_invalido', 'O pixCopiaECola não é um BR Code válido: CRC ausente ou incorreto.');
    if (parsed.merchantAccount.get('00')?.toLowerCase() !== PIX_GUI)
      throw refuse('qrcode_invalido', 'O BR Code informado não é um Pix.');
    const url = parsed.merchantAccount.get('25');
    if (url === undefined) {
      const chave = parsed.merchantAccount.get('01');
      if (!chave) throw refuse('qrcode_invalido', 'O BR Code estático não traz chave.');
      const txid = parsed.additionalData.get('05');
      const amount = parsed.fields.get('54');
      let amountCents: number | undefined;
      if (amount !== undefined) {
        if (!/^\d{1,10}(\.\d{1,2})?$/.test(amount)) throw refuse('qrcode_invalido', 'O valor do BR Code é inválido.');
        const [units, cents = ''] = amount.split('.');
        amountCents = parseAmount(`${Number(units)}.${cents.padEnd(2, '0')}`);
      }
      return { kind: 'static', chave, ...(txid && txid !== '***' && { txid }), amountCents };
    }
    const token = tokenFromAddress(ctx.config.publicUrl, url);
    if (!token)
      throw refuse(
        'qrcode_nao_suportado',
        `O BR Code dinâmico aponta para ${url}, que não é uma location desta instituição.`,
      );
    const address = `https://${url.replace(/^https:\/\//i, '')}`;
    let served: { status: number; text: string };
    try {
      served = await fetchText(address, caPem);
    } catch {
      throw refuse('qrcode_inacessivel', 'A location do BR Code não respondeu.');
    }
    if (served.status === 404)
      throw refuse('cobranca_inexistente', 'Nenhuma cobrança é servida pela location do BR Code.');
    if (served.status === 410) throw refuse('cobranca_expirada', 'A cobrança do BR Code expirou.');
    if (served.status !== 200) throw refuse('qrcode_inacessivel', `A location do BR Code respondeu ${served.status}.`);
    const payload = await verifyPayloadJws(served.text, new URL(address).host, fetchJwks);
    if (payload.status === 'CONCLUIDA') throw refuse('cobranca_paga', 'A cobrança do BR Code já foi paga.');
    if (typeof payload.status === 'string' && payload.status.startsWith('REMOVIDA'))
      throw refuse('cobranca_removida', `A cobrança do BR Code foi removida (${payload.status}).`);
    return { kind: 'dynamic', token, amountCents: payloadAmount(payload), payload };
  };
}

async function qrDestination(
  sql: Sql,
  caller: Caller,
  deps: SendDeps,
  code: ReadCode,
): Promise<{ amountCents: number; destination: Destination }> {
  if (code.kind === 'dynamic') {
    const charge = await chargeAtLocation(sql, code.token);
    if (!charge) throw refuse('cobranca_inexistente', 'Nenhuma cobrança é servida pela location do BR Code.');
    if (charge.account_id === caller.accountId)
      throw refuse('cobranca_propria', 'A cobrança do BR Code é da própria conta pagadora.');
    // The engine's own rules, now, for a named refusal; settlement applies them again under the charge's lock.
    const refused = unpayableReason(charge, caller.now);
    if (refused) throw refuse(refused.code, refused.message);
    return {
      amountCents: code.amountCents,
      destination: {
        destination: 'pixd',
        target: { kind: 'location', token: code.token },
        receiverAccountId: charge.account_id,
        favorecido: { chave: charge.chave, identificacao: await holderIdentity(sql, charge.account_id) },
      },
    };
  }
  if (code.amountCents === undefined || code.amountCents === 0)
    throw refuse('qrcode_sem_valor', 'O BR Code estático não fixa um valor a pagar.');
  if (!isPixKey(code.chave)) throw refuse('qrcode_invalido', `${code.chave} não é uma chave Pix válida.`);
  const owner = await keyOwner(sql, code.chave);
  if (owner === caller.accountId)
    throw refuse('chave_propria', 'A chave do BR Code pertence à própria conta pagadora.');
  if (owner !== undefined)
    return {
      amountCents: code.amountCents,
      destination: {
        destination: 'pixd',
        target: { kind: 'key', chave: code.chave, txid: code.txid, fromStaticQrCode: true },
        receiverAccountId: owner,
        favorecido: { chave: code.chave, identificacao: await holderIdentity(sql, owner) },
      },
    };
  const identificacao = deps.external.accept({ amountCents: code.amountCents, favorecido: { chave: code.chave } });
  return {
    amountCents: code.amountCents,
    destination: {
      destination: 'externa',
      target: null,
      receiverAccountId: null,
      favorecido: { chave: code.chave, identificacao },
    },
  };
}

/** The payment of a read code; `code` is undefined when the idEnvio is already used (replay or conflict). */
export function payQrCode(
  sql: Sql,
  caller: Caller,
  deps: SendDeps,
  idEnvio: string,
  body: QrCodePayRequest,
  code: ReadCode | undefined,
) {
  return startSend(sql, caller, {
    idEnvio,
    request: body,
    via: 'qrcode',
    payerKey: body.pagador.chave,
    infoPagador: body.pagador.infoPagador,
    resolve: (tx) => {
      if (!code) throw refuse('qrcode_invalido', 'O BR Code não pôde ser lido.');
      return qrDestination(tx, caller, deps, code);
    },
  });
}
