/**
 * Servers under test run in child processes, so the load generator never shares their event loop. A child
 * is a TypeScript entry started with `node --import tsx`; it prints one JSON line when it is ready and
 * exits on SIGTERM or when its parent goes away (the IPC channel closes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { onCleanup, throwIfInterrupted } from './lifecycle.ts';

const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 5_000;

/** Extra node flags for the servers under test, e.g. BENCH_CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof". */
const childNodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);

export interface Child<Ready> {
  ready: Ready;
  pid: number;
  stop(): Promise<void>;
}

export async function startChild<Ready>(entry: string, env: Record<string, string> = {}): Promise<Child<Ready>> {
  throwIfInterrupted();
  const child = spawn(process.execPath, [...childNodeArgs, '--import', 'tsx', entry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const stop = () => stopChild(child);
  const forget = onCleanup(stop);
  try {
    const ready = await readyLine<Ready>(child, entry);
    return {
      ready,
      pid: child.pid!,
      async stop() {
        await stop();
        forget();
      },
    };
  } catch (error) {
    await stop();
    forget();
    throw error;
  }
}

async function readyLine<Ready>(child: ChildProcess, entry: string): Promise<Ready> {
  const lines = createInterface({ input: child.stdout! });
  const timer = setTimeout(() => child.kill('SIGKILL'), READY_TIMEOUT_MS);
  const exited = once(child, 'exit').then(([code, signal]) => {
    throw new Error(`${entry} exited before it was ready (code ${code}, signal ${signal})`);
  });
  exited.catch(() => undefined); // A later exit (after ready) is not an error here.
  try {
    const line = await Promise.race([once(lines, 'line').then(([first]) => first as string), exited]);
    // Later output (there should be none) is drained so the child never blocks on a full pipe.
    lines.on('line', (more) => process.stderr.write(`[${entry}] ${more}\n`));
    return JSON.parse(line) as Ready;
  } finally {
    clearTimeout(timer);
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(killer);
}

/**
 * For child entries, called first thing. A stop request (SIGTERM, SIGINT, the parent going away) during
 * start-up exits at once: the parent owns the data directory and database and cleans them up. After
 * `ready`, a stop request runs `shutdown` once, then exits.
 */
export function childLifecycle(): { ready(info: unknown, shutdown: () => Promise<void>): void } {
  let shutdown: (() => Promise<void>) | undefined;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (!shutdown) process.exit(0);
    shutdown()
      .catch((error) => process.stderr.write(`shutdown failed: ${(error as Error).stack}\n`))
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  return {
    ready(info, onStop) {
      shutdown = onStop;
      // Started by a parent that has gone meanwhile: nobody is listening.
      if (process.send && !process.connected) return stop();
      process.stdout.write(JSON.stringify(info) + '\n');
    },
  };
}
