/**
 * The embedded database belongs to one process. Two servers on one PGlite data directory both start and
 * both acknowledge writes, and the writes of one are lost at the next start. Whoever opens it (a server, or
 * a CLI command when no server runs) holds `pixd.lock`, created exclusively and holding its pid; a lock
 * whose pid is dead (a killed server) is stale and taken over.
 *
 * Node has no flock(2); exclusive creation plus a liveness check of the pid is the portable equivalent.
 * Its one gap: two processes taking over the same stale lock at the same instant. That needs two starts
 * racing after a crash, and the second is refused at its next open.
 */
import fs from 'node:fs';
import path from 'node:path';
import { processAlive } from '../processes.ts';

export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the data directory ${dataDir} is in use by pid ${pid} (a running pixd server or command); stop it, or use its operator API`,
    );
  }
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'pixd.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return {
        release() {
          // Only our own lock: a stale-lock takeover by another process must not be undone by us.
          if (readPid(file) === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readPid(file);
      if (holder !== undefined && processAlive(holder)) throw new DataDirInUse(dataDir, holder);
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new DataDirInUse(dataDir, readPid(file) ?? 0);
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
