/**
 * A node as a `pixd start` child process (`startPixd({ mode: 'child' })`): the real command, its own memory and
 * event loop, stopped with SIGTERM as an operator would (a drain), SIGKILL if it does not end in time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTING_FLAGS } from '../config.ts';

/** A first start is already done (the template); a copy's start takes about a second, more on a busy machine. */
const CHILD_START_TIMEOUT_MS = 60_000;
const CHILD_STOP_TIMEOUT_MS = 15_000;
const READY_POLL_MS = 50;
/** What the child said last, quoted when it fails to start. */
const STDERR_KEPT_CHARS = 4_000;

/** bin/pixd.js of this package, from src/testing or from the compiled copy of src/ under node_modules/.cache. */
function pixdBin(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    const bin = path.join(dir, 'bin', 'pixd.js');
    if (fs.existsSync(bin)) return bin;
    if (path.dirname(dir) === dir) throw new Error(`bin/pixd.js not found above ${here}`);
  }
}

export async function startChild(
  settings: Record<string, string>,
  baseUrl: string,
): Promise<{ pagesUrl: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [pixdBin(), 'start'], {
    env: { ...callerEnvWithoutSettings(), ...settings },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk).slice(-STDERR_KEPT_CHARS)));
  const exited = once(child, 'exit');
  const ca = fs.readFileSync(path.join(settings.PIXD_DATA_DIR, 'ca.pem'));
  const deadline = Date.now() + CHILD_START_TIMEOUT_MS;
  while (!(await ready(baseUrl, ca))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`pixd start did not become ready (exit ${child.exitCode ?? child.signalCode}): ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  return {
    pagesUrl: `https://127.0.0.1:${settings.PIXD_PAGES_PORT}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The caller's environment is the integrator's: its DATABASE_URL, PORT or REDIS_URL belong to their own
 * application, and a sandbox started by the helper runs on exactly the settings startPixd chose (as the
 * in-process node does, whose configuration reads only those).
 */
function callerEnvWithoutSettings(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const [, name] of SETTING_FLAGS) delete env[name];
  return env;
}

/** `/health/ready` answers 200 once the node serves and its database answers. */
function ready(baseUrl: string, ca: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const request = https.get(new URL('/health/ready', baseUrl), { ca, timeout: 1_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}
