/**
 * The `pixd` command's grammar, declared with commander: help for every command, `--version`, and unknown
 * commands or flags refused with a suggestion (`start --prot 9000` must not start on 8443).
 */
import fs from 'node:fs';
import { Command } from 'commander';
import { loadConfig, settingsWith, SETTING_FLAGS, type Config } from '../config.ts';
import { SCHEDULE_OPTIONS, scheduleCommandFrom, type ScheduleFlagValues } from '../pix/schedules/cli-flags.ts';
import { ApiClient } from './api-client.ts';
import { TRIGGERS, clock, pay, type TriggerOptions } from './sandbox-commands.ts';
import { listen } from './listen.ts';
import { FAULT_KINDS_HELP, faults, type FaultFlags } from './fault-commands.ts';

/** The commands that open the database or start a server load the whole server: only when they run. */
const commands = () => import('./commands.ts');
const snapshotCommands = () => import('./snapshot-commands.ts');

const VERSION = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** commander keys an option `--data-dir` as `dataDir`. */
const optionKey = (flag: string) => flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The settings of a command: environment, overridden by the setting flags given anywhere on the line. */
function configOf(command: Command): Config {
  const given = command.optsWithGlobals() as Record<string, string | undefined>;
  const flags = Object.fromEntries(SETTING_FLAGS.map(([flag, name]) => [name, given[optionKey(flag)]]));
  return loadConfig(settingsWith(flags, process.env));
}

export function buildProgram(): Command {
  const program = new Command('pixd')
    .description('Pix receiving and billing interface: a local sandbox, or a production node on PostgreSQL')
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(pixd --help lists the commands, pixd <command> --help their flags)')
    .showSuggestionAfterError()
    .configureHelp({ showGlobalOptions: true })
    // Throw instead of exiting, so main decides the exit status; subcommands inherit it when declared.
    .exitOverride();
  for (const [flag, name, description] of SETTING_FLAGS) program.option(`${flag} <value>`, `${description} [${name}]`);
  program.addHelpText(
    'after',
    '\nEvery setting is also an environment variable (in brackets); a flag wins over the environment.',
  );

  program
    .command('start')
    .description('start the service (HTTPS; the first start creates the data directory and credentials.json)')
    .option('--reinitialize', 'let a data directory whose database is gone start over as a new service')
    .action((options: { reinitialize?: boolean }, command: Command) =>
      commands().then((c) => c.start(configOf(command), { reinitialize: options.reinitialize === true })),
    );

  program
    .command('migrate')
    .description('apply database migrations and exit')
    .action((_options: unknown, command: Command) => commands().then((c) => c.runMigrate(configOf(command))));

  const account = program.command('account').description('accounts and their applications');
  account
    .command('create')
    .description('create an account with its application, certificate and credentials-<conta>.json')
    .option('--nome <nome>', "the account holder's name (default: Conta <conta>)")
    .option('--documento <documento>', "the holder's CPF or CNPJ")
    .option(
      '--scopes <a,b>',
      'scopes the application holds, comma-separated (default: every scope but sandbox.write, which the sandbox adds, and gn.registration.*, named only by the operator)',
    )
    .option('--logradouro <logradouro>', "the holder's street address (default: Avenida Paulista, 1000)")
    .option('--cidade <cidade>', "the holder's city, also the QR codes' merchant city (default: Sao Paulo)")
    .option('--uf <uf>', "the holder's state, two letters (default: SP)")
    .option('--cep <cep>', "the holder's postal code, eight digits (default: 01310100)")
    .option('--participant', 'an indirect participant: gets an ISPB and the *.ind.* scopes (docs/participants.md)')
    .option('--ispb <ispb>', "the participant's ISPB, 8 digits (default: drawn)")
    .option('--json', 'print the credentials as JSON (the shape of credentials.json)')
    .action(
      (
        options: {
          nome?: string;
          documento?: string;
          scopes?: string;
          logradouro?: string;
          cidade?: string;
          uf?: string;
          cep?: string;
          participant?: boolean;
          ispb?: string;
          json?: boolean;
        },
        command: Command,
      ) =>
        commands().then((c) =>
          c.accountCreate(
            configOf(command),
            {
              ...(options.nome !== undefined && { nome: options.nome }),
              ...(options.documento !== undefined && { documento: options.documento }),
              ...(options.logradouro !== undefined && { logradouro: options.logradouro }),
              ...(options.cidade !== undefined && { cidade: options.cidade }),
              ...(options.uf !== undefined && { uf: options.uf }),
              ...(options.cep !== undefined && { cep: options.cep }),
              ...(options.participant === true && { participant: true }),
              ...(options.ispb !== undefined && { ispb: options.ispb }),
              ...(options.scopes !== undefined && {
                scopes: options.scopes
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
              }),
            },
            options.json === true,
          ),
        ),
    );

  const consoleUser = program
    .command('console-user')
    .description('people who may use the web console (docs/console.md)');
  consoleUser
    .command('create')
    .description('create a console user with the accounts they may see and a role; prints the secret once')
    .requiredOption('--name <name>', 'the name they sign in with')
    .requiredOption('--role <role>', 'viewer (reads) | developer (reads, webhook and sandbox writes) | admin (all)')
    .requiredOption('--contas <a,b>', 'the accounts they may see, by account number (conta), comma-separated')
    .option('--json', 'print the user and secret as JSON')
    .action((options: { name: string; role: string; contas: string; json?: boolean }, command: Command) =>
      commands().then((c) =>
        c.consoleUserCreate(
          configOf(command),
          { name: options.name, role: options.role, contas: options.contas.split(',') },
          options.json === true,
        ),
      ),
    );
  consoleUser
    .command('remove')
    .description('remove a console user: their open sessions are refused from their next request')
    .requiredOption('--name <name>', 'the name they sign in with')
    .action((options: { name: string }, command: Command) =>
      commands().then((c) => c.consoleUserRemove(configOf(command), options.name)),
    );
  consoleUser
    .command('update')
    .description("change a console user's role or accounts: their open sessions are refused from their next request")
    .requiredOption('--name <name>', 'the name they sign in with')
    .option('--role <role>', 'viewer | developer | admin')
    .option('--contas <a,b>', 'the accounts they may see from now on (replacing the ones they had), comma-separated')
    .option('--json', 'print the user as JSON')
    .action((options: { name: string; role?: string; contas?: string; json?: boolean }, command: Command) =>
      commands().then((c) =>
        c.consoleUserUpdate(
          configOf(command),
          {
            name: options.name,
            ...(options.role !== undefined && { role: options.role }),
            ...(options.contas !== undefined && { contas: options.contas.split(',') }),
          },
          options.json === true,
        ),
      ),
    );
  consoleUser
    .command('rotate-secret')
    .description(
      "give a console user a new secret, printed once: the old one and the user's open sessions stop working",
    )
    .requiredOption('--name <name>', 'the name they sign in with')
    .option('--json', 'print the name and secret as JSON')
    .action((options: { name: string; json?: boolean }, command: Command) =>
      commands().then((c) => c.consoleUserRotateSecret(configOf(command), options.name, options.json === true)),
    );
  consoleUser
    .command('list')
    .description('every console user: name, role, accounts and when they were created')
    .option('--json', 'print the list as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      commands().then((c) => c.consoleUserList(configOf(command), options.json === true)),
    );

  const schedule = program.command('schedule').description('scheduled Pix sent from an account');
  const create = schedule
    .command('create')
    .description('schedule a Pix (through the running server, else on the database directly)');
  for (const [flag, , description] of SCHEDULE_OPTIONS) create.option(flag, description);
  create
    .option('--json', 'print the schedule as JSON')
    .action((options: Record<string, string | boolean | undefined>, command: Command) => {
      const values: ScheduleFlagValues = {};
      for (const [flag, key] of SCHEDULE_OPTIONS) {
        const value = options[optionKey(flag.split(' ')[0])];
        if (typeof value === 'string') values[key] = value;
      }
      return commands().then((c) =>
        c.scheduleCreate(configOf(command), scheduleCommandFrom(values), options.json === true),
      );
    });

  program
    .command('ledger')
    .description('the double-entry journal')
    .command('verify')
    .description('recompute every posted total and the journal sum from the lines; exit status 2 when they disagree')
    .option('--json', 'print the verification as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      commands().then((c) => c.ledgerVerify(configOf(command), options.json === true)),
    );

  const snapshots = program
    .command('snapshot')
    .description('save and restore the whole sandbox, running or stopped (names: a-z, 0-9 and _)');
  for (const [action, description] of [
    ['save', 'keep every table as it is now under <name>'],
    ['restore', 'put every table back as it was when <name> was saved'],
    ['delete', 'forget the snapshot <name>'],
  ] as const)
    snapshots
      .command(`${action} <name>`)
      .description(description)
      .option('--json', 'print the snapshot as JSON')
      .action((name: string, options: { json?: boolean }, command: Command) =>
        snapshotCommands().then((c) => c.snapshot(configOf(command), action, name, options.json === true)),
      );
  snapshots
    .command('list')
    .description('the snapshots kept, oldest name first')
    .option('--json', 'print them as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      snapshotCommands().then((c) => c.snapshot(configOf(command), 'list', undefined, options.json === true)),
    );

  program
    .command('spi-simulator')
    .description(
      "the sandbox's other institution as a process: answers a node's SPI messages as its gateway would (docs/spi.md)",
    )
    .requiredOption('--connect <url>', "the node's HTTPS origin, e.g. https://127.0.0.1:8443")
    .action(async (options: { connect: string }, command: Command) => {
      const { runSpiSimulator } = await import('../sandbox/spi-simulator.ts');
      await runSpiSimulator({ url: options.connect, dataDir: configOf(command).dataDir });
    });

  const credentialsOption = [
    '--credentials <file>',
    "the account to act as: a credentials file (default: the data directory's credentials.json)",
  ] as const;

  program
    .command('pay')
    .description(
      'pay as a fictitious payer (sandbox): a charge by txid, a BR Code (pixCopiaECola), a key, or a boleto (barcode or linha digitável)',
    )
    .argument('<target>', 'txid, pixCopiaECola or chave')
    .option('--valor <valor>', 'amount, e.g. 12.34 (needed for a key; default for a charge: what it asks today)')
    .option(...credentialsOption)
    .action((target: string, options: { valor?: string; credentials?: string }, command: Command) =>
      asAccount(command, options, (api) => pay(api, target, options.valor)),
    );

  const clockCommand = program
    .command('clock')
    .description("the account's sandbox clock: show it, move it ahead, or put it back to real time");
  clockCommand
    .command('show', { isDefault: true })
    .description('print the clock')
    .option(...credentialsOption)
    .action((options: { credentials?: string }, command: Command) =>
      asAccount(command, options, (api) => clock(api, 'show')),
    );
  clockCommand
    .command('advance')
    .description('move the clock ahead: charges expire, due dates pass, retries and schedules run')
    .argument('<duration>', 'like 3d, 2h, 1d12h, 90m or 45s')
    .option(...credentialsOption)
    .action((duration: string, options: { credentials?: string }, command: Command) =>
      asAccount(command, options, (api) => clock(api, { advance: duration })),
    );
  clockCommand
    .command('reset')
    .description('put the clock back to real time')
    .option(...credentialsOption)
    .action((options: { credentials?: string }, command: Command) =>
      asAccount(command, options, (api) => clock(api, 'reset')),
    );

  program
    .command('listen')
    .description(
      "forward the account's webhooks to a local address over plain HTTP (sandbox); the local answer is the delivery's outcome",
    )
    .requiredOption(
      '--forward-to <url>',
      'where to POST each delivery, like http://localhost:3000/webhook (/pix is appended as pixd does)',
    )
    .option(
      '--key <chave>',
      "only this key's Pix webhooks (default: every key's, and recurrences and recurring charges)",
    )
    .option(...credentialsOption)
    .action(async (options: { forwardTo: string; key?: string; credentials?: string }, command: Command) => {
      const api = ApiClient.fromFile(options.credentials ?? `${configOf(command).dataDir}/credentials.json`);
      // Ctrl-C ends the stream: the server puts the account's registrations back.
      const stop = () => {
        api.close();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await listen(api, options.forwardTo, options.key, (line) => process.stdout.write(`${line}\n`));
      } finally {
        api.close();
      }
    });

  const trigger = program
    .command('trigger')
    .description('make pixd send a webhook of the given kind (sandbox), through the same routes as the API')
    .argument('<event>', Object.keys(TRIGGERS).join(' | '))
    .option('--chave <chave>', "pix, devolucao: the key that receives (default: the account's first)")
    .option('--valor <valor>', 'pix, devolucao: the amount (default 12.34)')
    .option('--notification-url <url>', 'cobranca: where the charge notifies')
    .option(...credentialsOption)
    .action((event: string, options: TriggerOptions & { credentials?: string }, command: Command) => {
      const kind = TRIGGERS[event];
      if (!kind) command.error(`error: unknown event '${event}': one of ${Object.keys(TRIGGERS).join(', ')}`);
      return asAccount(command, options, (api) => kind.run(api, options));
    });
  trigger.addHelpText(
    'after',
    `\nEvents:\n${Object.entries(TRIGGERS)
      .map(([name, t]) => `  ${name.padEnd(16)}${t.description}`)
      .join('\n')}`,
  );

  const fault = program
    .command('fault')
    .description("the account's faults on demand (sandbox, docs/faults.md): set one kind, list them, clear them");
  fault
    .command('list', { isDefault: true })
    .description('the faults in force')
    .option(...credentialsOption)
    .action((options: { credentials?: string }, command: Command) =>
      asAccount(command, options, (api) => faults(api, 'list')),
    );
  fault
    .command('set')
    .description("set a fault of one kind (replacing that kind's)")
    .argument('<tipo>', Object.keys(FAULT_KINDS_HELP).join(' | '))
    .option('--resultado <resultado>', 'chave: nao_encontrada | tempo_esgotado')
    .option('--espera-ms <ms>', 'chave tempo_esgotado: how long the send waits before it answers')
    .option('--status <status>', 'webhook: the status the failed attempts record, 400 to 599')
    .option('--codigo <codigo>', "cartao: the issuer's refusal code; envio: the SPI's rejection code")
    .option('--estado <estado>', 'instituicao: lenta | fora')
    .option('--atraso-ms <ms>', 'instituicao lenta: how much later the receiving institution answers')
    .option('--motivo <motivo>', 'devolucao, cartao, envio: the reason given')
    .option('--vezes <n>', 'only the next n occurrences')
    .option('--durante <duration>', "only for this long on the account's clock, like 90s, 5m or 1h")
    .option(...credentialsOption)
    .action((tipo: string, options: FaultFlags & { credentials?: string }, command: Command) =>
      asAccount(command, options, (api) => faults(api, { set: tipo, flags: options })),
    )
    .addHelpText(
      'after',
      `\nKinds:\n${Object.entries(FAULT_KINDS_HELP)
        .map(([name, help]) => `  ${name.padEnd(12)}${help}`)
        .join('\n')}`,
    );
  fault
    .command('clear')
    .description('clear one kind, or every fault (a sandbox reset clears them too)')
    .argument('[tipo]', Object.keys(FAULT_KINDS_HELP).join(' | '))
    .option(...credentialsOption)
    .action((tipo: string | undefined, options: { credentials?: string }, command: Command) =>
      asAccount(command, options, (api) => faults(api, { clear: tipo })),
    );

  return program;
}

/** Runs `work` with a client of the named (or the demo) account and prints what it says. */
async function asAccount(
  command: Command,
  options: { credentials?: string },
  work: (api: ApiClient) => Promise<string>,
): Promise<void> {
  const api = ApiClient.fromFile(options.credentials ?? `${configOf(command).dataDir}/credentials.json`);
  try {
    process.stdout.write(`${await work(api)}\n`);
  } finally {
    api.close();
  }
}
