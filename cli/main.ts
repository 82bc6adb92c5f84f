import { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { packageInfo } from './boot/package-info.js';
import { runRole } from './commands/start.js';
import { runMigrate } from './commands/migrate.js';
import { runDoctor } from './commands/doctor.js';
import { runTemporalCli } from './commands/temporal-cli.js';

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
  .action(() => runRole('all'));
program
  .command('api')
  .description('run only the HTTP services (scale-out; needs TEMPORAL_ADDRESS)')
  .action(() => runRole('api'));
program
  .command('worker')
  .description('run only the Temporal workers (scale-out; needs TEMPORAL_ADDRESS)')
  .action(() => runRole('worker'));
program
  .command('migrate')
  .description('apply pending database migrations')
  .option('--status', 'list pending migrations without applying them')
  .option('--unlock', 'release the migration lock left by a crashed process')
  .action(async (options: { status?: boolean; unlock?: boolean }) => exitWith(await runMigrate(options)));
program
  .command('doctor')
  .description('check config, database, Temporal, git and the assistant executables')
  .option('--json', 'print the results as JSON')
  .action(async (options: { json?: boolean }) => exitWith(await runDoctor(options)));
program
  .command('temporal-cli')
  .description('find the Temporal CLI, or build it from the Go module proxy and cache it')
  .action(async () => exitWith(await runTemporalCli()));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // A misconfiguration is the user's to fix: say what is wrong, without a stack trace.
  if (!(error instanceof ConfigError)) throw error;
  console.error(`[cairn] configuration error: ${error.message}`);
  process.exit(2);
}
