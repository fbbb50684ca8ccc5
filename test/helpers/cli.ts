/**
 * Runs the real `pixd` command as a child process, asynchronously: the server it may talk to (through the
 * operator API) often runs in this very test process, and a synchronous spawn would block its answers.
 */
import path from 'node:path';
import { execFile } from 'node:child_process';

const BIN = path.resolve('bin/pixd.js');
const CLI_TIMEOUT_MS = 60_000;

export interface CliRun {
  /** The exit code; 0 on success. */
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runPixd(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [BIN, ...args],
      { encoding: 'utf8', env: { ...process.env, ...env }, timeout: CLI_TIMEOUT_MS },
      (error, stdout, stderr) => resolve({ status: error ? ((error.code as number) ?? null) : 0, stdout, stderr }),
    ),
  );
}
