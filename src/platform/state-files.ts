/**
 * Files of the data directory that a person or the CLI reads back (credentials.json, operator.json, the
 * service identity). Written atomically — a temporary file, fsync, rename, fsync of the directory — so a
 * crash or a full disk leaves the old file or the new one, never half of one; read with a one-line error
 * instead of a stack trace when one is damaged anyway.
 */
import fs from 'node:fs';
import path from 'node:path';

export class DamagedStateFile extends Error {
  constructor(readonly file: string) {
    super(
      `${file} is damaged (not the JSON pixd wrote; truncated?): restore it from a backup, or start over with pixd start --reinitialize`,
    );
  }
}

/** The service identity a data directory keeps (platform/identity.ts). */
export const IDENTITY_FILE = 'identity.json';
/** Other files that say a service already lived in a data directory. */
export const SERVICE_FILES = [
  'credentials.json',
  'operator.json',
  'ca.pem',
  'webhook-client-chain.pem',
  'certificates',
];

/** Which service lived in `dataDir`, as a person reads it (`id …`, or the files it left); undefined for none. */
export function serviceTraces(dataDir: string): string | undefined {
  const identity = readJsonFile<{ serviceId: string }>(path.join(dataDir, IDENTITY_FILE));
  if (identity) return `id ${identity.serviceId}`;
  const leftovers = SERVICE_FILES.filter((name) => fs.existsSync(path.join(dataDir, name)));
  return leftovers.length ? leftovers.join(', ') : undefined;
}

export function writeFileAtomic(file: string, content: string | Buffer, mode = 0o600): void {
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temporary, 'w', mode);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
  const dir = fs.openSync(path.dirname(file), 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}

export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

/** Undefined when the file does not exist; `DamagedStateFile` when it is not JSON. */
export function readJsonFile<T>(file: string): T | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new DamagedStateFile(file);
  }
}
