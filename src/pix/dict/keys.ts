/**
 * The directory's rules for an entry, beyond its shape: each key type's format, CPF and CNPJ check digits and
 * their equality with the owner's document, the owner's document by its type, the account's fields. Each
 * broken rule is one violation; the caller answers them together as EntryInvalid.
 */
import { isValidCnpj, isValidCpf } from '../../platform/documents.ts';
import type { Violation } from '../../platform/errors.ts';
import type { EntryCreate } from './schemas.ts';

/** DICT: `+`, then 2 to 15 digits, the first non-zero (E.164 country code first). */
const PHONE = /^\+[1-9]\d{1,14}$/;
/** DICT: lower-case e-mail addresses. */
const EMAIL =
  /^[a-z0-9.!#$&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
/** DICT: random keys are lower-case UUIDs. */
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BRANCH = /^\d{4}$/;
const ACCOUNT_NUMBER = /^\d{1,20}$/;

const keyRules: Record<string, (key: string, ownerTaxId: string) => string | undefined> = {
  phone: (key) =>
    PHONE.test(key) ? undefined : 'telefone: "+" seguido de 2 a 15 dígitos, o primeiro diferente de zero.',
  email: (key) => (EMAIL.test(key) ? undefined : 'e-mail inválido (minúsculas, um "@" e um domínio).'),
  evp: (key) => (EVP.test(key) ? undefined : 'chave aleatória: um UUID em minúsculas.'),
  cpf: (key, owner) =>
    !isValidCpf(key)
      ? 'CPF inválido (dígitos verificadores).'
      : key !== owner
        ? 'o CPF difere do documento do titular.'
        : undefined,
  cnpj: (key, owner) =>
    !isValidCnpj(key)
      ? 'CNPJ inválido (dígitos verificadores).'
      : key !== owner
        ? 'o CNPJ difere do documento do titular.'
        : undefined,
};

export function entryViolations(body: EntryCreate, participantIspb: string): Violation[] {
  const { entry } = body;
  const violations: Violation[] = [];
  const keyType = entry.keyType.toLowerCase();
  const ownerType = entry.owner.type.toLowerCase();
  const keyProblem = keyRules[keyType](entry.key, entry.owner.taxIdNumber);
  if (keyProblem) violations.push({ property: 'entry.key', reason: keyProblem, value: entry.key });
  if (ownerType === 'natural_person' && !isValidCpf(entry.owner.taxIdNumber))
    violations.push({ property: 'entry.owner.taxIdNumber', reason: 'pessoa natural: um CPF válido.' });
  if (ownerType === 'legal_person' && !isValidCnpj(entry.owner.taxIdNumber))
    violations.push({ property: 'entry.owner.taxIdNumber', reason: 'pessoa jurídica: um CNPJ válido.' });
  if (ownerType === 'natural_person' && entry.owner.tradeName !== undefined)
    violations.push({ property: 'entry.owner.tradeName', reason: 'nome fantasia só para pessoa jurídica.' });
  if (keyType === 'cnpj' && ownerType !== 'legal_person')
    violations.push({ property: 'entry.keyType', reason: 'chave CNPJ só para pessoa jurídica.' });
  if (keyType === 'cpf' && ownerType !== 'natural_person')
    violations.push({ property: 'entry.keyType', reason: 'chave CPF só para pessoa natural.' });
  if (!BRANCH.test(entry.account.branch))
    violations.push({ property: 'entry.account.branch', reason: 'agência: 4 dígitos.', value: entry.account.branch });
  if (!ACCOUNT_NUMBER.test(entry.account.accountNumber))
    violations.push({ property: 'entry.account.accountNumber', reason: 'conta: 1 a 20 dígitos.' });
  if (entry.account.participant !== participantIspb)
    violations.push({
      property: 'entry.account.participant',
      reason: `o ISPB do participante desta aplicação é ${participantIspb}.`,
      value: entry.account.participant,
    });
  return violations;
}
