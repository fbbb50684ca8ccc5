/**
 * Accounts, their applications and client certificates. Used by first start (the demo account), the
 * operator API and `pixd account create`. The client's private key is handed out once and never stored (the
 * demo account's excepted: every node of a cluster writes the same credentials.json, accounts/demo.ts).
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Sql } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import type { ServicePki } from '../platform/bootstrap.ts';
import { certificateSha256, issueCertificate, toPkcs12 } from '../platform/pki.ts';
import { hashSecret } from '../platform/auth/tokens.ts';
import { DEFAULT_ACCOUNT_SCOPES, PARTICIPANT_SCOPES, isParticipantScope, isScope } from '../platform/auth/scopes.ts';
import { RECEIVER_ISPB, SANDBOX_PAYER_ISPB } from '../platform/institution.ts';
import { completeCnpj, isValidCnpj, isValidCpf } from '../platform/documents.ts';
import { MERCHANT_CITY_MAX_CHARS, normalizeEmvText } from '../platform/brcode.ts';
import { LIMITS } from '../platform/limits.ts';
import type { Environment } from '../config.ts';
import { insertAccount, insertApplication, insertKey, type AccountAddress, type AccountRow } from './store.ts';

export interface NewAccountInput {
  nome?: string;
  documento?: string;
  scopes?: string[];
  /** The holder's address; each part defaults to the demo address's (`DEFAULT_ADDRESS`). */
  logradouro?: string;
  cidade?: string;
  uf?: string;
  cep?: string;
  /** An indirect participant (docs/participants.md): gets an ISPB and may hold the `*.ind.*` scopes. */
  participant?: boolean;
  /** The participant's ISPB (8 digits); one is drawn when not given. */
  ispb?: string;
}

export interface IssuedAccount {
  account: AccountRow;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  chaves: string[];
  certificate: { certPem: string; keyPem: string; p12Base64: string };
}

export class AccountInputError extends Error {}

/** The demo account's address, and every part a new account is not given. */
export const DEFAULT_ADDRESS: AccountAddress = {
  logradouro: 'Avenida Paulista, 1000',
  cidade: 'Sao Paulo',
  uf: 'SP',
  cep: '01310100',
};

const UFS = new Set('AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(' '));

/**
 * Why an address cannot be an account's, naming the part, or undefined. Bacen bounds logradouro and cidade to
 * 200 characters; the city is also the BR Code's merchant city, so it must keep a letter once normalised.
 */
export function addressProblem(a: AccountAddress): { part: keyof AccountAddress; reason: string } | undefined {
  if (!a.logradouro.trim() || a.logradouro.length > ADDRESS_TEXT_MAX_CHARS)
    return { part: 'logradouro', reason: `de 1 a ${ADDRESS_TEXT_MAX_CHARS} caracteres.` };
  if (a.cidade.length > ADDRESS_TEXT_MAX_CHARS || !normalizeEmvText(a.cidade, MERCHANT_CITY_MAX_CHARS))
    return {
      part: 'cidade',
      reason: `de 1 a ${ADDRESS_TEXT_MAX_CHARS} caracteres, com letras (é a cidade do QR Code).`,
    };
  if (!UFS.has(a.uf)) return { part: 'uf', reason: 'a sigla de uma unidade da federação (SP, RJ, …).' };
  if (!/^\d{8}$/.test(a.cep)) return { part: 'cep', reason: 'oito dígitos.' };
  return undefined;
}

const NOME_MAX_CHARS = 200;
/** Bacen DadosComplementaresPessoa bounds the receiver's logradouro and cidade as the debtor's. */
const ADDRESS_TEXT_MAX_CHARS = LIMITS.devedorLogradouroMaxChars;

const ISPB_PATTERN = /^\d{8}$/;

/** A fictitious ISPB for a participant: 8 digits, never pixd's own nor the sandbox payer's. */
function drawIspb(): string {
  for (;;) {
    const ispb = String(randomInt(10 ** 7, 10 ** 8));
    if (ispb !== RECEIVER_ISPB && ispb !== SANDBOX_PAYER_ISPB) return ispb;
  }
}

/**
 * `environment`: in the sandbox a new account's application also holds `sandbox.write` when no scopes are
 * named (its holder plays the payer and moves its clock, as with the demo account); production keeps the
 * sandbox tools out of the defaults.
 */
export function validateAccountInput(
  input: NewAccountInput,
  environment: Environment = 'production',
): Required<Omit<NewAccountInput, 'participant' | 'ispb'>> & { ispb: string | null } {
  const address: AccountAddress = {
    logradouro: input.logradouro?.trim() || DEFAULT_ADDRESS.logradouro,
    cidade: input.cidade?.trim() || DEFAULT_ADDRESS.cidade,
    uf: input.uf?.trim() || DEFAULT_ADDRESS.uf,
    cep: input.cep?.trim() || DEFAULT_ADDRESS.cep,
  };
  const problem = addressProblem(address);
  if (problem) throw new AccountInputError(`${problem.part}: ${problem.reason}`);
  // Empty: createAccount names the account after its number (a new account is not the demo account).
  const nome = input.nome?.trim() ?? '';
  if (nome.length > NOME_MAX_CHARS) throw new AccountInputError(`nome must be at most ${NOME_MAX_CHARS} characters`);
  const documento = input.documento ?? completeCnpj(String(randomInt(10 ** 11, 10 ** 12)));
  if (!isValidCpf(documento) && !isValidCnpj(documento))
    throw new AccountInputError(`documento "${documento}" is not a valid CPF or CNPJ`);
  if (input.ispb !== undefined && !input.participant)
    throw new AccountInputError('ispb is given only to a participant account');
  if (input.ispb !== undefined && (!ISPB_PATTERN.test(input.ispb) || input.ispb === RECEIVER_ISPB))
    throw new AccountInputError(`ispb "${input.ispb}" must be 8 digits and not this institution's own`);
  const ispb = input.participant ? (input.ispb ?? drawIspb()) : null;
  const defaults = [
    ...DEFAULT_ACCOUNT_SCOPES,
    ...(ispb ? PARTICIPANT_SCOPES : []),
    ...(environment === 'sandbox' ? (['sandbox.write'] as const) : []),
  ];
  const scopes = input.scopes?.length ? [...new Set(input.scopes)] : [...defaults];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw new AccountInputError(`unknown scopes: ${unknown.join(', ')}`);
  const reserved = ispb ? [] : scopes.filter(isParticipantScope);
  if (reserved.length)
    throw new AccountInputError(`only a participant account may hold the scopes ${reserved.join(', ')}`);
  return { nome, documento, scopes, ...address, ispb };
}

/** A client secret as Efí spells them; only its hash is stored. */
export const newClientSecret = () => `Client_Secret_${randomBytes(24).toString('hex')}`;

/** `db`: the database, or an open transaction to create the account in (the demo account, accounts/demo.ts). */
export async function createAccount(
  db: Sql,
  pki: ServicePki,
  clock: Clock,
  input: NewAccountInput,
  environment: Environment = 'production',
): Promise<IssuedAccount> {
  const valid = validateAccountInput(input, environment);
  const conta = String(randomInt(10 ** 7, 10 ** 8));
  const now = clock.now();
  const clientId = `Client_Id_${randomBytes(20).toString('hex')}`;
  const clientSecret = newClientSecret();
  const certificate = issueCertificate(pki.ca, { commonName: clientId, usage: 'client', now });
  const chave = randomUUID();
  const account = await db.atomic(async (sql) => {
    const account = await insertAccount(
      sql,
      {
        nome: valid.nome || `Conta ${conta}`,
        documento: valid.documento,
        conta,
        payee_code: randomBytes(16).toString('hex'),
        logradouro: valid.logradouro,
        cidade: valid.cidade,
        uf: valid.uf,
        cep: valid.cep,
        participant_ispb: valid.ispb,
      },
      now,
    );
    await insertKey(sql, { chave, accountId: account.id, tipo: 'evp' }, now);
    await insertApplication(
      sql,
      {
        clientId,
        accountId: account.id,
        secretHash: hashSecret(clientSecret),
        scopes: valid.scopes,
        certificateSha256: certificateSha256(certificate.certPem),
      },
      now,
    );
    return account;
  });
  return {
    account,
    clientId,
    clientSecret,
    scopes: valid.scopes,
    chaves: [chave],
    certificate: { ...certificate, p12Base64: toPkcs12(certificate, pki.ca.certPem).toString('base64') },
  };
}
