/**
 * Payment tokens (spec: Card/billing Rules). The browser encrypts the card data with the service's public key
 * (RSA, PKCS#1 v1.5) and sends the ciphertext to GET /v1/card/:payee_code/jsonp; nothing else accepts card
 * data, so a server cannot create tokens from raw card data. The number and holder data are sealed in the
 * vault (AES-256-GCM); the CVV is checked for shape and dropped (PCI DSS forbids keeping it). What is stored in
 * clear is the brand and the mask.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { ApiError, type GroupErrorName } from '../../platform/errors.ts';
import { billingError, INVALID_BRAND_CODE } from '../shared/errors.ts';
import { BRANDS, CARD_NUMBER_DIGITS, detectBrand, isBrand, maskCard, type Brand } from './brands.ts';
import { installmentTable } from './installments.ts';
import { cardKeys, decryptCardData, openVault, publicKeyBase64, sealVault } from './keys.ts';
import { accountIdByPayeeCode, findTokensByHash, insertToken, takeToken } from './store.ts';

/** An error whose `code` in the body is a library code rather than the HTTP status (payment-token-efi shapes). */
export class CodedBillingError extends ApiError<GroupErrorName<'billing'>> {
  constructor(
    readonly code: number,
    status: number,
    error: GroupErrorName<'billing'>,
    description: string,
  ) {
    super(status, error, description);
  }
}

const invalidBrand = () =>
  new CodedBillingError(INVALID_BRAND_CODE, 400, 'invalid_brand', `Bandeira inválida: aceitas ${BRANDS.join(', ')}.`);
const unknownAccount = () => billingError(401, 'invalid_account', 'Identificador de conta (payee_code) inválido.');
// One answer for every undecryptable or malformed card payload, so the endpoint reveals nothing about why.
const invalidCardData = () =>
  billingError(400, 'invalid_card_data', 'Dados do cartão inválidos ou não cifrados com a chave pública desta conta.');

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export async function publicKeyFor(sql: Sql, payeeCode: string): Promise<string> {
  if ((await accountIdByPayeeCode(sql, payeeCode)) === undefined) throw unknownAccount();
  return publicKeyBase64(await cardKeys(sql));
}

export function requireBrand(brand: string): Brand {
  if (!isBrand(brand)) throw invalidBrand();
  return brand;
}

export function installmentsFor(brand: string, totalCents: number) {
  return installmentTable(requireBrand(brand), totalCents);
}

export async function installmentsForPayee(sql: Sql, payeeCode: string, brand: string, totalCents: number) {
  if ((await accountIdByPayeeCode(sql, payeeCode)) === undefined) throw unknownAccount();
  return installmentsFor(brand, totalCents);
}

interface CardData {
  brand: Brand;
  number: string;
  expiration_month: string;
  expiration_year: string;
  holder_name?: string;
  holder_document?: string;
  reuse: boolean;
}

function parseCardData(plaintext: string, now: Date): CardData {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(plaintext);
  } catch {
    throw invalidCardData();
  }
  const text = (key: string) => (typeof data[key] === 'string' ? (data[key] as string) : '');
  const number = text('number').replace(/\s+/g, '');
  if (
    !new RegExp(`^\\d{${CARD_NUMBER_DIGITS.min},${CARD_NUMBER_DIGITS.max}}$`).test(number) ||
    !/^\d{3,4}$/.test(text('cvv'))
  )
    throw invalidCardData();
  const month = Number(text('expiration_month'));
  const year = Number(text('expiration_year'));
  if (!/^\d{2}$/.test(text('expiration_month')) || month < 1 || month > 12 || !/^\d{4}$/.test(text('expiration_year')))
    throw invalidCardData();
  if (Date.UTC(year, month, 1) <= now.getTime()) throw billingError(400, 'expired_card', 'Cartão vencido.');
  const brand = text('brand').toLowerCase();
  if (!isBrand(brand) || detectBrand(number) !== brand) throw invalidBrand();
  return {
    brand,
    number,
    expiration_month: text('expiration_month'),
    expiration_year: text('expiration_year'),
    ...(text('holder_name') && { holder_name: text('holder_name') }),
    ...(text('holder_document') && { holder_document: text('holder_document') }),
    reuse: data.reuse === true,
  };
}

export async function createPaymentToken(
  sql: Sql,
  payeeCode: string,
  encrypted: string,
  /** The time of the payee's account (the sandbox moves it per account). */
  nowOf: (accountId: number) => Date,
): Promise<{ payment_token: string; card_mask: string }> {
  const accountId = await accountIdByPayeeCode(sql, payeeCode);
  if (accountId === undefined) throw unknownAccount();
  const now = nowOf(accountId);
  const keys = await cardKeys(sql);
  let plaintext: string;
  try {
    plaintext = decryptCardData(keys, encrypted);
  } catch {
    throw invalidCardData();
  }
  const card = parseCardData(plaintext, now);
  const token = randomBytes(20).toString('hex');
  const lifetime = card.reuse
    ? LIMITS.billingReusableTokenLifetimeSeconds
    : LIMITS.billingSingleUseTokenLifetimeSeconds;
  const cardEnd = Date.UTC(Number(card.expiration_year), Number(card.expiration_month), 1);
  const { reuse, brand, ...vaulted } = card;
  await insertToken(
    sql,
    {
      token_sha256: hashToken(token),
      account_id: accountId,
      brand,
      card_mask: maskCard(card.number),
      vault_entry: sealVault(keys, JSON.stringify(vaulted)),
      reuse,
      expiresAt: new Date(Math.min(now.getTime() + lifetime * 1000, cardEnd)),
    },
    now,
  );
  return { payment_token: token, card_mask: maskCard(card.number) };
}

/** Uses a token for a payment of `accountId` (single-use tokens are spent). */
export async function spendPaymentToken(sql: Sql, accountId: number, token: string, now: Date) {
  const row = await takeToken(sql, hashToken(token), accountId, now);
  if (!row)
    throw billingError(
      400,
      'invalid_payment_token',
      'payment_token inválido, expirado, já utilizado ou de outra conta.',
    );
  return { tokenRef: row.token_sha256, brand: row.brand, cardMask: row.card_mask };
}

/** The card number behind a spent token, read from the vault only to authorise (never returned or logged). */
export async function cardNumberOf(sql: Sql, tokenRef: string): Promise<string> {
  return (await cardNumbersOf(sql, [tokenRef])).get(tokenRef)!;
}

/** The card numbers behind spent tokens, by token reference (the vault's keys read once); throws if one is missing. */
export async function cardNumbersOf(sql: Sql, tokenRefs: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(tokenRefs)];
  const rows = await findTokensByHash(sql, unique);
  const missing = unique.find((ref) => !rows.some((r) => r.token_sha256 === ref));
  if (missing) throw new Error(`vault entry ${missing.slice(0, 8)} missing`);
  const keys = await cardKeys(sql);
  return new Map(
    rows.map((r) => [r.token_sha256, (JSON.parse(openVault(keys, r.vault_entry)) as { number: string }).number]),
  );
}
