import { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { packageInfo } from './boot/package-info.js';
import { addClientCommands } from './client-commands.js';
import { EXIT } from '../client/exit-codes.js';

// Each command's modules load when that command runs: `cairn --help` or `cairn migrate` never pay
// for the server (Temporal worker, HTTP, SDKs), and `cairn start` never loads the doctor.
const start = () => import('./commands/start.js');

const program = new Command()
  .name('cairn')
  .description('Durable AI coding assistant workflows on your git repositories')
  .version(packageInfo().version, '-v, --version');

const exitWith = (code: number) => process.exit(code);

program
  .command('start')
  .description(
    'run everything in one process: migrations, Temporal (embedded unless TEMPORAL_ADDRESS), worker, HTTP',
  )
  .action(async () => (await start()).runRole('all'));
program
  .command('api')
  .description('run only the HTTP services (scale-out; needs TEMPORAL_ADDRESS)')
  .action(async () => (await start()).runRole('api'));
program
  .command('worker')
  .description('run only the Temporal workers (scale-out; needs TEMPORAL_ADDRESS)')
  .action(async () => (await start()).runRole('worker'));
program
  .command('migrate')
  .description('apply pending database migrations')
  .option('--status', 'list pending migrations without applying them')
  .option('--unlock', 'release the migration lock left by a crashed process')
  .action(async (options: { status?: boolean; unlock?: boolean }) => {
    const { runMigrate } = await import('./commands/migrate.js');
    exitWith(await runMigrate(options));
  });
program
  .command('doctor')
  .description('check config, database, Temporal, git and the assistant executables')
  .option('--json', 'print the results as JSON')
  .action(async (options: { json?: boolean }) => {
    const { runDoctor } = await import('./commands/doctor.js');
    exitWith(await runDoctor(options));
  });
program
  .command('temporal-cli')
  .description('find the Temporal CLI, or build it from the Go module proxy and cache it')
  .action(async () => {
    const { runTemporalCli } = await import('./commands/temporal-cli.js');
    exitWith(await runTemporalCli());
  });

program
  .command('backup <file>')
  .description('copy the embedded databases and the config into <file> (a .tar.gz), while Cairn runs')
  .action(async (file: string) => {
    const { runBackup } = await import('./commands/backup.js');
    exitWith(await runBackup(file));
  });
program
  .command('restore <file>')
  .description('restore a backup into the home (CAIRN_HOME); Cairn must be stopped')
  .action(async (file: string) => {
    const { runRestore } = await import('./commands/backup.js');
    exitWith(await runRestore(file));
  });

const auth = program
  .command('auth')
  .description('the optional sign-in: password hashes, secrets, the forward-auth service');
auth
  .command('hash-password')
  .description('print an argon2id hash for AUTH_PASSWORD_HASH (asks twice on a terminal, or reads stdin)')
  .action(async () => {
    const { runHashPassword } = await import('./commands/auth.js');
    exitWith(await runHashPassword());
  });
auth
  .command('new-secret')
  .description('print 64 random hex characters, for COOKIE_SECRET or CAIRN_API_TOKEN')
  .action(async () => {
    const { runNewSecret } = await import('./commands/auth.js');
    exitWith(runNewSecret());
  });
auth
  .command('serve')
  .description("run the forward-auth service on AUTH_SERVICE_PORT, for a reverse proxy's auth requests")
  .action(async () => {
    const { runAuthServe } = await import('./commands/auth.js');
    await runAuthServe();
  });

addClientCommands(program);

// Usage errors (an unknown command or option, a missing argument) exit 64, as sysexits.h says;
// commander has already printed what was wrong.
const SHOWN = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);
const usageExits = (command: Command): void => {
  command.exitOverride((error) => process.exit(SHOWN.has(error.code) ? 0 : EXIT.usage));
  command.commands.forEach(usageExits);
};
usageExits(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // A misconfiguration is the user's to fix: say what is wrong, without a stack trace.
  if (!(error instanceof ConfigError)) throw error;
  console.error(`[cairn] configuration error: ${error.message}`);
  process.exit(2);
}
