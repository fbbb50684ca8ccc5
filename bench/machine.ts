/** What the numbers were measured on: they mean little without it. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  autocannon: string;
  /** 1-minute load average when the bench started (the machine may be shared). */
  loadAverage: number;
  date: string;
  /** Which code was measured: BENCH_CODE_VERSION, else the git commit (and whether src/ had changes). */
  code: string;
}

function codeVersion(): string {
  if (process.env.BENCH_CODE_VERSION) return process.env.BENCH_CODE_VERSION;
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const commit = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--', 'src') ? `${commit} with uncommitted changes in src/` : commit;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) return match[1].trim();
  } catch {
    // Not Linux: fall back to what Node reports.
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

export function describeMachine(): Machine {
  const autocannon = createRequire(import.meta.url)('autocannon/package.json') as { version: string };
  return {
    cpu: cpuModel(),
    cores: os.availableParallelism(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    autocannon: autocannon.version,
    loadAverage: os.loadavg()[0],
    date: new Date().toISOString(),
    code: codeVersion(),
  };
}
