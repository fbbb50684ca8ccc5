/**
 * What the bench must undo however it ends: child processes, temporary directories, databases. Owners
 * register an idempotent cleanup step and forget it once they have cleaned up themselves. On Ctrl-C or
 * SIGTERM every step runs at once, and anything that would create a new resource throws `Interrupted`,
 * so the run unwinds through the owners' own error paths and a final `cleanupAll`.
 */
const cleanups = new Set<() => Promise<void>>();
let interrupted: string | undefined;

/** Cleanups get this long after a signal before the process exits anyway. */
const EXIT_DEADLINE_MS = 20_000;

export class Interrupted extends Error {}

export function throwIfInterrupted(): void {
  if (interrupted) throw new Interrupted(`interrupted by ${interrupted}`);
}

export function onCleanup(step: () => Promise<void>): () => void {
  cleanups.add(step);
  return () => void cleanups.delete(step);
}

/** Runs every registered step, newest first. Steps stay registered: they are idempotent. */
export async function cleanupAll(): Promise<void> {
  for (const step of [...cleanups].reverse()) {
    await step().catch((error) => process.stderr.write(`bench: cleanup failed: ${(error as Error).message}\n`));
  }
}

export function cleanupOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = signal;
      process.stderr.write(`bench: ${signal}, cleaning up\n`);
      setTimeout(() => process.exit(130), EXIT_DEADLINE_MS).unref();
      void cleanupAll();
    });
  }
}
