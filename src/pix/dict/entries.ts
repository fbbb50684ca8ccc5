/**
 * `POST /dict/entries`: a participant registers a key of its customer. The key becomes a `pix_keys` row of the
 * participant's account, marked so that incoming Pix wait for the participant's confirmation (payments/holds.ts).
 * One key table for the whole pixd: a key held by anyone (another participant's customer, a platform account)
 * is a conflict, named as the directory names it.
 */
import { createHash } from 'node:crypto';
import type { Database, Sql } from '../../platform/db/database.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import { type ApiError, invalid } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { RECEIVER_ISPB } from '../../platform/institution.ts';
import { entryViolations } from './keys.ts';
import type { DictEntryView, EntryCreate } from './schemas.ts';
import { canonicalJson } from '../../platform/canonical-json.ts';
import {
  countOwnerKeys,
  entryByRequestId,
  insertEntry,
  insertEntryKey,
  keyHolder,
  lockDictScope,
  type KeyHolder,
} from './store.ts';

export const ENTRY_INVALID = 'EntryInvalid';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function entryView(body: EntryCreate, now: Date): DictEntryView {
  const { account, owner } = body.entry;
  return {
    key: body.entry.key,
    keyType: body.entry.keyType.toUpperCase(),
    account: {
      accountNumber: account.accountNumber,
      accountType: account.accountType.toUpperCase(),
      branch: account.branch,
      openingDate: account.openingDate,
      participant: account.participant,
    },
    owner: {
      name: owner.name,
      taxIdNumber: owner.taxIdNumber,
      type: owner.type.toUpperCase(),
      ...(owner.tradeName !== undefined && { tradeName: owner.tradeName }),
    },
    creationDate: now.toISOString(),
    keyOwnershipDate: now.toISOString(),
  };
}

/** The directory's answer to a key someone holds already. */
function conflict(key: string, holder: KeyHolder, ownerTaxId: string, participant: string): ApiError {
  if (holder.removed)
    return invalid(ENTRY_INVALID, `A chave ${key} foi removida e não pode ser registrada de novo.`, [
      { property: 'entry.key', reason: 'chave removida.', value: key },
    ]);
  if (holder.owner_tax_id !== ownerTaxId)
    return invalid('EntryKeyOwnedByDifferentPerson', `A chave ${key} pertence a outra pessoa.`);
  if ((holder.participant ?? RECEIVER_ISPB) !== participant)
    return invalid(
      'EntryKeyInCustodyOfDifferentParticipant',
      `A chave ${key} está sob a guarda de outro participante.`,
    );
  return invalid('EntryAlreadyExists', `A chave ${key} já está registrada para este titular neste participante.`);
}

function replay(stored: { request_sha256: string; entry: DictEntryView }, hash: string, requestId: string) {
  if (stored.request_sha256 === hash) return stored.entry;
  throw invalid(ENTRY_INVALID, `O requestId ${requestId} já foi usado com outro corpo.`, [
    { property: 'requestId', reason: 'requestId já usado com outro corpo.', value: requestId },
  ]);
}

/** Inside one transaction: idempotency, the owner's limit, the key, the entry. */
async function register(
  sql: Sql,
  accountId: number,
  ispb: string,
  body: EntryCreate,
  hash: string,
  now: Date,
): Promise<DictEntryView> {
  const stored = await entryByRequestId(sql, body.requestId);
  if (stored) return replay(stored, hash, body.requestId);
  const { entry } = body;
  const owner = {
    participant: entry.account.participant,
    branch: entry.account.branch,
    accountNumber: entry.account.accountNumber,
    taxId: entry.owner.taxIdNumber,
  };
  await lockDictScope(sql, `owner/${owner.participant}/${owner.branch}/${owner.accountNumber}/${owner.taxId}`);
  const limit =
    entry.owner.type.toLowerCase() === 'natural_person'
      ? LIMITS.pixKeysMaxPerAccountNaturalPerson
      : LIMITS.pixKeysMaxPerAccountLegalPerson;
  if ((await countOwnerKeys(sql, owner)) >= limit)
    throw invalid('EntryLimitExceeded', `O titular já tem ${limit} chaves nesta conta, o máximo permitido.`);
  if (!(await insertEntryKey(sql, { chave: entry.key, accountId, tipo: entry.keyType.toLowerCase() }, now))) {
    // The same request sent twice at once: the other one committed it.
    const concurrent = await entryByRequestId(sql, body.requestId);
    if (concurrent) return replay(concurrent, hash, body.requestId);
    const holder = await keyHolder(sql, entry.key);
    if (holder) throw conflict(entry.key, holder, owner.taxId, ispb);
  }
  const view = entryView(body, now);
  await insertEntry(
    sql,
    {
      key: entry.key,
      accountId,
      requestId: body.requestId,
      requestSha256: hash,
      keyType: view.keyType,
      ownerTaxId: owner.taxId,
      ownerType: view.owner.type,
      participant: owner.participant,
      branch: owner.branch,
      accountNumber: owner.accountNumber,
      entry: view,
    },
    now,
  );
  return view;
}

export async function createEntry(
  db: Database,
  participant: { accountId: number; ispb: string },
  body: EntryCreate,
  now: Date,
): Promise<DictEntryView> {
  const violations = entryViolations(body, participant.ispb);
  if (violations.length) throw invalid(ENTRY_INVALID, 'A entrada não respeita as regras do diretório.', violations);
  const hash = sha256(canonicalJson(body));
  try {
    return await db.tx((sql) => register(sql, participant.accountId, participant.ispb, body, hash, now));
  } catch (error) {
    // A request id committed by a concurrent request with another key: decided again on what is committed.
    if (!isUniqueViolation(error)) throw error;
    return db.tx((sql) => register(sql, participant.accountId, participant.ispb, body, hash, now));
  }
}
