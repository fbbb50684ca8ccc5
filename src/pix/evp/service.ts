/** Random (evp) keys: create under the per-account limit, list, remove for good. No HTTP here. */
import { randomUUID } from 'node:crypto';
import type { Database, Sql } from '../../platform/db/database.ts';
import { ApiError } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { Caller } from '../shared/caller.ts';
import {
  activeRandomKeys,
  countActiveKeys,
  insertRandomKey,
  lockAccountForKeys,
  markRandomKeyRemoved,
} from './store.ts';

/**
 * UUIDs to try before giving up. A v4 UUID colliding with an existing (or removed) key is a 2^-122 event;
 * a second collision in a row means the random source is broken, which must surface as an error.
 */
const NEW_KEY_ATTEMPTS = 3;

/** DICT limit per account: a CPF (11 digits) account is a natural person, a CNPJ account a legal one. */
export function keyLimitOf(documento: string): number {
  return documento.length === 11 ? LIMITS.pixKeysMaxPerAccountNaturalPerson : LIMITS.pixKeysMaxPerAccountLegalPerson;
}

export async function createRandomKey(db: Database, caller: Caller): Promise<{ chave: string }> {
  return db.tx(async (sql) => {
    const account = await lockAccountForKeys(sql, caller.accountId);
    if (!account) throw new ApiError(500, 'erro_aplicacao', 'Conta do usuário recebedor inexistente.');
    const limit = keyLimitOf(account.documento);
    if ((await countActiveKeys(sql, caller.accountId)) >= limit) {
      throw new ApiError(
        400,
        'limite_criacao_chave_atingido',
        `A conta já tem ${limit} chaves Pix ativas, o máximo permitido. Remova uma chave para criar outra.`,
      );
    }
    for (let attempt = 0; attempt < NEW_KEY_ATTEMPTS; attempt++) {
      const chave = randomUUID();
      if (await insertRandomKey(sql, caller.accountId, chave, caller.now)) return { chave };
    }
    throw new ApiError(500, 'erro_aplicacao', 'Não foi possível gerar uma chave aleatória inédita.');
  });
}

export async function listRandomKeys(sql: Sql, caller: Caller): Promise<{ chaves: string[] }> {
  return { chaves: await activeRandomKeys(sql, caller.accountId) };
}

/**
 * Removal is for good: the row stays with removed_at, charges for the key become unpayable (their payload
 * says REMOVIDA_PELO_PSP) and its webhook stops. Another account's key, a key of another type or one already
 * removed answer like an unknown key, so nothing leaks about keys the caller does not hold.
 */
export async function removeRandomKey(sql: Sql, caller: Caller, chave: string): Promise<void> {
  if (!(await markRandomKeyRemoved(sql, caller.accountId, chave, caller.now))) {
    throw new ApiError(
      404,
      'chave_nao_encontrada',
      `A chave aleatória ${chave} não foi encontrada entre as chaves ativas da conta.`,
    );
  }
}
