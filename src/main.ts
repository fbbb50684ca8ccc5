/** The `pixd` command: argument parsing in cli/program.ts, each command's work in cli/commands.ts. */
import { CommanderError } from 'commander';
import { ConfigError } from './config.ts';
import { DataDirInUse } from './platform/db/data-dir-lock.ts';
import { DamagedDataDir } from './platform/db/embedded-check.ts';
import { IdentityMismatch } from './platform/identity.ts';
import { DamagedStateFile } from './platform/state-files.ts';
import { ScheduleCliError } from './pix/schedules/cli-flags.ts';
import { CliError } from './cli/operator-client.ts';
import { buildProgram } from './cli/program.ts';

/** Failures a person can act on: one line, no stack trace. */
const EXPECTED = [
  ConfigError,
  CliError,
  ScheduleCliError,
  DataDirInUse,
  DamagedDataDir,
  IdentityMismatch,
  DamagedStateFile,
];

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  // `pixd` alone is a question, not an order to start a server.
  if (argv.length === 0) {
    program.outputHelp();
    return;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // commander has already printed its message (and help or a suggestion); only the exit status is ours.
    if (error instanceof CommanderError) process.exit(error.exitCode);
    const known = EXPECTED.some((kind) => error instanceof kind);
    process.stderr.write(`pixd: ${known ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`);
    process.exit(1);
  }
}
