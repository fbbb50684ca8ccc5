import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * A standalone bench's entry point: runs `bench` when the module is the script Node was started with (not
 * when imported), reports a failure through `log` with a non-zero exit, and always cleans up.
 */
export async function runIfMain(moduleUrl: string, log: (line: string) => void, bench: () => Promise<void>) {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  try {
    await bench();
  } catch (error) {
    log(`failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  } finally {
    await cleanupAll();
  }
}

/**
 * The loop of the benches that chain requests (settlement, sends): `workers` loops each run `step` again as
 * soon as the previous one ends, until `durationS` is up, the bench is interrupted, or `maxSteps` steps have
 * started in all (a bound on a runaway loop of errors). Steps in flight at the deadline finish.
 */
export async function runWorkers(
  workers: number,
  options: { durationS: number; maxSteps: number },
  step: (worker: number, n: number) => Promise<void>,
): Promise<void> {
  let started = 0;
  let stopped = false;
  const forget = onCleanup(async () => void (stopped = true));
  const deadline = performance.now() + options.durationS * 1000;
  const loop = async (worker: number) => {
    for (let n = 0; !stopped && performance.now() < deadline && started < options.maxSteps; n++) {
      started++;
      await step(worker, n);
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, (_, worker) => loop(worker)));
  } finally {
    forget();
  }
}
