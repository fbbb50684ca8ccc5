/**
 * The operator secret authenticates the `pixd` CLI to a running server. Its clear value lives only in
 * `<data dir>/operator.json` (mode 0600); the database keeps hashes, one per node that wrote one.
 * Account credentials never carry it and no account route accepts it.
 */
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from '../platform/db/database.ts';
import { hashSecret, secretMatches } from '../platform/auth/tokens.ts';
import { newSecret } from '../platform/ids.ts';
import { readState, writeState } from '../platform/state.ts';
import { readJsonFile, writeJsonAtomic } from '../platform/state-files.ts';

const STATE = 'operator.secret_hashes';

export interface OperatorFile {
  url: string;
  secret: string;
}

export const operatorFilePath = (dataDir: string) => path.join(dataDir, 'operator.json');

export async function ensureOperatorSecret(db: Database, config: Config): Promise<OperatorFile> {
  const file = operatorFilePath(config.dataDir);
  const existing = readJsonFile<OperatorFile>(file);
  const secret = existing?.secret ?? newSecret();
  const operator = { url: `https://127.0.0.1:${config.port}`, secret };
  await db.tx(async (sql) => {
    const hashes = (await readState<string[]>(sql, STATE)) ?? [];
    if (!hashes.includes(hashSecret(secret))) await writeState(sql, STATE, [...hashes, hashSecret(secret)]);
  });
  return operator;
}

/** Called once the server listens: the CLI dials the actual port (PORT=0 picks one). */
export function writeOperatorFile(dataDir: string, operator: OperatorFile): void {
  writeJsonAtomic(operatorFilePath(dataDir), operator);
}

export async function operatorSecretValid(db: Database, secret: string): Promise<boolean> {
  const hashes = (await readState<string[]>(db, STATE)) ?? [];
  return hashes.some((hash) => secretMatches(secret, hash));
}
