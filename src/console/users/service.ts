/**
 * Console users: the operator creates them (operator API, `pixd console-user create`) with the accounts they
 * may see and a role, lists them, changes one's role or accounts, gives one a new secret, and removes them;
 * each signs in with name and secret. A secret is returned once and stored hashed. A removed user's sessions,
 * and a user's sessions from before a change or a new secret, end at their next request (console/session.ts
 * `SessionCodec.refused`).
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import { hashSecret, secretMatches } from '../../platform/auth/tokens.ts';
import { newSecret } from '../../platform/ids.ts';
import { LIMITS } from '../../platform/limits.ts';
import { ROLES, isRole, type RoleName } from './roles.ts';
import {
  accountIdsByConta,
  changeConsoleUser,
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

/** The name a user is stored and signs in under, whatever case and spaces were typed. */
export const normalName = (name: string) => name.trim().toLowerCase();

function checkedRole(role: string): RoleName {
  if (!isRole(role)) throw new ConsoleUserInputError(`role must be one of ${ROLES.join(', ')}.`);
  return role;
}

/** The accounts (each `conta` once) and their ids, in the caller's transaction; every `conta` must exist. */
async function accountsOf(sql: Sql, given: string[]): Promise<{ contas: string[]; ids: number[] }> {
  const contas = [...new Set(given.map((c) => c.trim()).filter(Boolean))];
  if (!contas.length || contas.length > LIMITS.consoleUserAccountsMax)
    throw new ConsoleUserInputError(`give 1 to ${LIMITS.consoleUserAccountsMax} accounts (conta).`);
  const ids = await accountIdsByConta(sql, contas);
  const unknown = contas.filter((c) => !ids.has(c));
  if (unknown.length) throw new ConsoleUserInputError(`no such account: ${unknown.join(', ')}.`);
  return { contas, ids: [...ids.values()] };
}

export async function createConsoleUser(db: Database, now: Date, input: NewConsoleUser): Promise<IssuedConsoleUser> {
  const name = normalName(input.name);
  if (!NAME.test(name))
    throw new ConsoleUserInputError(
      `name must be 1 to ${LIMITS.consoleUserNameMaxChars} of a-z, 0-9, ".", "_", "@", "-", starting with a letter or digit.`,
    );
  const role = checkedRole(input.role);
  const secret = newSecret();
  const { created, contas } = await db.tx(async (sql) => {
    const accounts = await accountsOf(sql, input.contas);
    const secretHash = hashSecret(secret);
    const id = await insertConsoleUser(sql, { name, secretHash, role, accountIds: accounts.ids }, now);
    return { created: id !== undefined, contas: accounts.contas };
  });
  if (!created) throw new ConsoleUserInputError(`a console user named ${name} exists already.`, 'taken');
  return { name, role, contas, secret };
}

/**
 * A user's role or accounts changed (each when given): their open sessions, granted the old ones at sign-in,
 * are refused from their next request; the user signs in again to get the new ones.
 */
export async function updateConsoleUser(
  db: Database,
  input: { name: string; role?: string; contas?: string[] },
): Promise<ListedConsoleUser> {
  const name = normalName(input.name);
  if (input.role === undefined && input.contas === undefined)
    throw new ConsoleUserInputError('give a role, accounts (contas), or both.');
  const role = input.role === undefined ? undefined : checkedRole(input.role);
  const found = await db.tx(async (sql) => {
    const accountIds = input.contas === undefined ? undefined : (await accountsOf(sql, input.contas)).ids;
    return changeConsoleUser(sql, name, { role, accountIds });
  });
  if (!found) throw missingUser(name);
  return listed((await listConsoleUsers(db, name))[0]);
}

/** The user a name and secret sign in as, or undefined (an unknown name and a wrong secret alike). */
export async function authenticateConsoleUser(
  db: Database,
  name: string,
  secret: string,
): Promise<ConsoleUserRow | undefined> {
  const user = await findConsoleUser(db, normalName(name));
  return user && secretMatches(secret, user.secret_hash) ? user : undefined;
}

/** Removes a user; their open sessions are refused from their next request on. */
export async function removeConsoleUser(db: Database, name: string): Promise<{ name: string }> {
  const normalized = normalName(name);
  if (!(await deleteConsoleUser(db, normalized))) throw missingUser(normalized);
  return { name: normalized };
}

/** A new secret (shown once) for a user whose secret leaked or who left it behind: the old one and every open session of theirs stop working. */
export async function rotateConsoleUserSecret(db: Database, name: string): Promise<{ name: string; secret: string }> {
  const normalized = normalName(name);
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

const listed = (r: ConsoleUserListed): ListedConsoleUser => ({
  name: r.name,
  role: r.role,
  contas: r.contas,
  createdAt: r.created_at.toISOString(),
});

export async function consoleUsers(db: Database): Promise<{ users: ListedConsoleUser[] }> {
  return { users: (await listConsoleUsers(db)).map(listed) };
}

const missingUser = (name: string) => new ConsoleUserInputError(`no console user named ${name}.`, 'missing');
