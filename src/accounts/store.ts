import type { Sql } from '../platform/db/database.ts';

/** The holder's address (Bacen DadosComplementaresPessoa), as due charges name their receiver. */
export interface AccountAddress {
  logradouro: string;
  cidade: string;
  /** Two capital letters. */
  uf: string;
  /** Eight digits. */
  cep: string;
}

export interface AccountRow extends AccountAddress {
  id: number;
  nome: string;
  documento: string;
  conta: string;
  payee_code: string;
  /** The account's ISPB when it is an indirect participant. */
  participant_ispb: string | null;
}

const ACCOUNT_COLUMNS = 'id, nome, documento, conta, payee_code, logradouro, cidade, uf, cep, participant_ispb';

export async function insertAccount(sql: Sql, a: Omit<AccountRow, 'id'>, now: Date): Promise<AccountRow> {
  const { rows } = await sql.query<AccountRow>(
    `insert into accounts (nome, documento, conta, payee_code, logradouro, cidade, uf, cep, participant_ispb, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     returning ${ACCOUNT_COLUMNS}`,
    [a.nome, a.documento, a.conta, a.payee_code, a.logradouro, a.cidade, a.uf, a.cep, a.participant_ispb, now],
  );
  return rows[0];
}

export async function findAccount(sql: Sql, accountId: number): Promise<AccountRow | undefined> {
  const { rows } = await sql.query<AccountRow>(`select ${ACCOUNT_COLUMNS} from accounts where id = $1`, [accountId]);
  return rows[0];
}

export async function updateAccountAddress(sql: Sql, accountId: number, address: AccountAddress): Promise<void> {
  await sql.query('update accounts set logradouro = $2, cidade = $3, uf = $4, cep = $5 where id = $1', [
    accountId,
    address.logradouro,
    address.cidade,
    address.uf,
    address.cep,
  ]);
}

export async function insertApplication(
  sql: Sql,
  app: { clientId: string; accountId: number; secretHash: string; scopes: string[]; certificateSha256: string },
  now: Date,
): Promise<void> {
  await sql.query(
    `insert into applications (client_id, account_id, secret_hash, scopes, certificate_sha256, created_at) values ($1, $2, $3, $4, $5, $6)`,
    [app.clientId, app.accountId, app.secretHash, app.scopes, app.certificateSha256, now],
  );
}

/** A new certificate (the previous one stops authenticating) or a new secret for an application. */
export async function replaceApplicationCredential(
  sql: Sql,
  clientId: string,
  change: { certificateSha256: string } | { secretHash: string },
): Promise<void> {
  const [column, value] =
    'certificateSha256' in change
      ? ['certificate_sha256', change.certificateSha256]
      : ['secret_hash', change.secretHash];
  await sql.query(`update applications set ${column} = $2 where client_id = $1`, [clientId, value]);
}

export interface ApplicationRow {
  client_id: string;
  account_id: number;
  secret_hash: string;
  scopes: string[];
  certificate_sha256: string;
  active: boolean;
}

export async function findApplication(sql: Sql, clientId: string): Promise<ApplicationRow | undefined> {
  const { rows } = await sql.query<ApplicationRow>(
    'select client_id, account_id, secret_hash, scopes, certificate_sha256, active from applications where client_id = $1',
    [clientId],
  );
  return rows[0];
}

export async function insertKey(
  sql: Sql,
  key: { chave: string; accountId: number; tipo: string },
  now: Date,
): Promise<void> {
  await sql.query('insert into pix_keys (chave, account_id, tipo, created_at) values ($1, $2, $3, $4)', [
    key.chave,
    key.accountId,
    key.tipo,
    now,
  ]);
}

export async function activeKeys(sql: Sql, accountId: number): Promise<string[]> {
  const { rows } = await sql.query<{ chave: string }>(
    'select chave from pix_keys where account_id = $1 and removed_at is null order by created_at, chave',
    [accountId],
  );
  return rows.map((r) => r.chave);
}

/** What charges show of their receiver. Bounded: past this many accounts the cache starts over. */
const DISPLAY_CACHE_MAX_ENTRIES = 10_000;
const displayCache = new Map<number, { nome: string; cidade: string }>();

/**
 * An account's name and city. Nothing ever changes them after creation, so every node may keep them for
 * good: this saves a join or a round trip on each charge written.
 */
export async function accountDisplay(sql: Sql, accountId: number): Promise<{ nome: string; cidade: string }> {
  const cached = displayCache.get(accountId);
  if (cached) return cached;
  const account = await findAccount(sql, accountId);
  if (!account) throw new Error(`account ${accountId} does not exist`);
  if (displayCache.size >= DISPLAY_CACHE_MAX_ENTRIES) displayCache.clear();
  const display = { nome: account.nome, cidade: account.cidade };
  displayCache.set(accountId, display);
  return display;
}
