/**
 * Console users: the operator creates them (operator API, `pixd console-user create`) with the accounts they
 * may see and a role, lists them, gives one a new secret, and removes them; each signs in with name and
 * secret. A secret is returned once and stored hashed. A removed user's sessions, and a user's sessions from
 * before a new secret, end at their next request (console/session.ts `SessionCodec.refused`).
 */
import type { Database } from '../../platform/db/database.ts';
import { hashSecret, secretMatches } from '../../platform/auth/tokens.ts';
import { newSecret } from '../../platform/ids.ts';
import { LIMITS } from '../../platform/limits.ts';
import { ROLES, isRole, type RoleName } from './roles.ts';
import {
  accountIdsByConta,
  deleteConsoleUser,
  findConsoleUser,
  insertConsoleUser,
  listConsoleUsers,
  replaceSecretHash,
  type ConsoleUserListed,
  type ConsoleUserRow,
} from './store.ts';

/** What a person gave that cannot make (or remove) a user: the operator API answers 400, 409 or 404. */
export class ConsoleUserInputError extends Error {
  constructor(
    message: string,
    readonly kind: 'invalid' | 'taken' | 'missing' = 'invalid',
  ) {
    super(message);
  }
}

export interface NewConsoleUser {
  name: string;
  role: string;
  /** The accounts' numbers (`conta`, as `pixd account create` prints them). */
  contas: string[];
}

export interface IssuedConsoleUser {
  name: string;
  role: RoleName;
  contas: string[];
  /** Shown once: only its hash is kept. */
  secret: string;
}

const NAME = new RegExp(`^[a-z0-9][a-z0-9._@-]{0,${LIMITS.consoleUserNameMaxChars - 1}}$`);

export async function createConsoleUser(db: Database, now: Date, input: NewConsoleUser): Promise<IssuedConsoleUser> {
  const name = input.name.trim().toLowerCase();
  if (!NAME.test(name))
    throw new ConsoleUserInputError(
      `name must be 1 to ${LIMITS.consoleUserNameMaxChars} of a-z, 0-9, ".", "_", "@", "-", starting with a letter or digit.`,
    );
  if (!isRole(input.role)) throw new ConsoleUserInputError(`role must be one of ${ROLES.join(', ')}.`);
  const contas = [...new Set(input.contas.map((c) => c.trim()).filter(Boolean))];
  if (!contas.length || contas.length > LIMITS.consoleUserAccountsMax)
    throw new ConsoleUserInputError(`give 1 to ${LIMITS.consoleUserAccountsMax} accounts (conta).`);
  const secret = newSecret();
  const role = input.role;
  const created = await db.tx(async (sql) => {
    const ids = await accountIdsByConta(sql, contas);
    const unknown = contas.filter((c) => !ids.has(c));
    if (unknown.length) throw new ConsoleUserInputError(`no such account: ${unknown.join(', ')}.`);
    return insertConsoleUser(sql, { name, secretHash: hashSecret(secret), role, accountIds: [...ids.values()] }, now);
  });
  if (created === undefined) throw new ConsoleUserInputError(`a console user named ${name} exists already.`, 'taken');
  return { name, role, contas, secret };
}

/** The user a name and secret sign in as, or undefined (an unknown name and a wrong secret alike). */
export async function authenticateConsoleUser(
  db: Database,
  name: string,
  secret: string,
): Promise<ConsoleUserRow | undefined> {
  const user = await findConsoleUser(db, name.trim().toLowerCase());
  return user && secretMatches(secret, user.secret_hash) ? user : undefined;
}

/** Removes a user; their open sessions are refused from their next request on. */
export async function removeConsoleUser(db: Database, name: string): Promise<{ name: string }> {
  const normalized = name.trim().toLowerCase();
  if (!(await deleteConsoleUser(db, normalized))) throw missingUser(normalized);
  return { name: normalized };
}

/** A new secret (shown once) for a user whose secret leaked or who left it behind: the old one and every open session of theirs stop working. */
export async function rotateConsoleUserSecret(db: Database, name: string): Promise<{ name: string; secret: string }> {
  const normalized = name.trim().toLowerCase();
  const secret = newSecret();
  if (!(await replaceSecretHash(db, normalized, hashSecret(secret)))) throw missingUser(normalized);
  return { name: normalized, secret };
}

export interface ListedConsoleUser {
  name: string;
  role: RoleName;
  contas: string[];
  /** ISO 8601, service clock. */
  createdAt: string;
}

export async function consoleUsers(db: Database): Promise<{ users: ListedConsoleUser[] }> {
  const rows: ConsoleUserListed[] = await listConsoleUsers(db);
  return {
    users: rows.map((r) => ({ name: r.name, role: r.role, contas: r.contas, createdAt: r.created_at.toISOString() })),
  };
}

const missingUser = (name: string) => new ConsoleUserInputError(`no console user named ${name}.`, 'missing');
