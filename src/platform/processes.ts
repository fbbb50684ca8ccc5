import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** Whether a process of this host still runs: judges stale locks and claims left by killed nodes. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const HOST = hostname();

/** `host:pid:random`: who holds a claim (an outbox job, a pixd listen session), and whether that process lives. */
export function holderId(): string {
  return `${HOST}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** A LIKE pattern matching the holders of this host. */
export const THIS_HOST_HOLDERS = `${HOST.replace(/[\\%_]/g, '\\$&')}:%`;

/**
 * Whether a holder of `holderId` was a process of this host that no longer exists (a node killed and
 * restarted). Another host's holders are never judged dead here: their pids mean nothing on this one.
 */
export function heldByDeadProcess(holder: string): boolean {
  const parts = holder.split(':');
  const pid = Number(parts.at(-2));
  return parts.slice(0, -2).join(':') === HOST && Number.isSafeInteger(pid) && pid > 0 && !processAlive(pid);
}
