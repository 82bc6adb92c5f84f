import { Option, type Command } from 'commander';
import type { ClientOptions, ClientSession } from '../client/session.js';

/**
 * The terminal door: client commands of the HTTP API (docs/cli.md). They load only `client/`
 * (fetch, readline, no server code), so they answer at once and work the same against a local
 * or a remote server. Each action's modules load when it runs.
 */
type Action = (session: ClientSession) => Promise<number>;

async function runClient(command: Command, action: Action): Promise<never> {
  const { openSession } = await import('../client/session.js');
  return exitWith(async () => action(openSession(command.optsWithGlobals<ClientOptions>())));
}

/** Runs a client action and exits with its code; a ClientExit is one line on stderr. */
async function exitWith(action: () => Promise<number> | number): Promise<never> {
  const { ClientExit } = await import('../client/exit-codes.js');
  let code: number;
  try {
    code = await action();
  } catch (error) {
    if (!(error instanceof ClientExit)) throw error;
    process.stderr.write(`cairn: ${error.message}\n`);
    code = error.code;
  }
  // Where pipes are asynchronous (macOS), exiting at once could cut a long output short.
  await Promise.all(
    [process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write('', done))),
  );
  process.exit(code);
}

const actions = {
  codebase: () => import('../client/actions/codebase.js'),
  chat: () => import('../client/actions/chat.js'),
  workflow: () => import('../client/actions/workflow.js'),
  run: () => import('../client/actions/run.js'),
  config: () => import('../client/actions/config.js'),
  status: () => import('../client/actions/status.js'),
  login: () => import('../client/actions/login.js'),
  schedule: () => import('../client/actions/schedule.js'),
};

/** --url, --profile and --json, on every client command. */
function clientCommand(parent: Command, spec: string, description: string): Command {
  return parent
    .command(spec)
    .description(description)
    .option('--url <url>', 'the server (default: CAIRN_URL, the saved profile, or http://127.0.0.1:$PORT)')
    .option('--profile <name>', 'a server saved with `cairn login`')
    .option('--json', 'machine-readable output: one JSON object per line');
}

export function addClientCommands(program: Command): void {
  program
    .command('completion <shell>')
    .description('print the shell completion script: source <(cairn completion bash), or zsh')
    .action(async (shell: string) =>
      exitWith(async () => {
        const { ClientExit, EXIT } = await import('../client/exit-codes.js');
        if (shell !== 'bash' && shell !== 'zsh')
          throw new ClientExit('completion is for bash or zsh', EXIT.usage);
        const { completionScript } = await import('./completion.js');
        process.stdout.write(completionScript(shell));
        return EXIT.ok;
      }),
    );
  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .option('--url <url>')
    .option('--profile <name>')
    .allowUnknownOption()
    .action(async (words: string[], options: ClientOptions) => {
      const { completions } = await import('./completion.js');
      const { openSession } = await import('../client/session.js');
      const found = await completions(program, words, () => openSession(options).api).catch(() => []);
      process.stdout.write(found.map((word) => `${word}\n`).join(''));
      process.exit(0);
    });

  clientCommand(program, 'status', 'whether the server answers, and what it is doing').action(
    async (_options, command: Command) =>
      runClient(command, async (session) => (await actions.status()).status(session)),
  );

  program
    .command('login <url>')
    .description('save a server and its API token (read from stdin or a prompt) as a profile, mode 0600')
    .option('--profile <name>', 'the profile name', 'default')
    .option('--no-default', 'do not make it the default profile')
    .action(async (url: string, options: { profile: string; default: boolean }) =>
      exitWith(async () => (await actions.login()).login(url, options)),
    );
  program
    .command('logout')
    .description('forget a saved server profile')
    .option('--profile <name>', 'the profile name', 'default')
    .action(async (options: { profile: string }) =>
      exitWith(async () => (await actions.login()).logout(options)),
    );

  clientCommand(
    program,
    'chat [message...]',
    'one message answered as it streams; no message: interactive (Ctrl-C cancels a turn, Ctrl-D leaves)',
  )
    .option('--codebase <id|name>', 'talk about this codebase (a new conversation)')
    .option('--conversation <id>', 'continue this conversation')
    .action(
      async (words: string[], options: { codebase?: string; conversation?: string }, command: Command) =>
        runClient(command, async (session) => (await actions.chat()).chat(session, words, options)),
    );

  const codebase = program.command('codebase').description('the repositories Cairn works on');
  clientCommand(codebase, 'add <url|path>', 'register a codebase: clone a URL or link a local checkout')
    .option('--name <name>', 'its name (default: from the URL or folder)')
    .option('--allow-env-keys', "consent to assistant keys in the repository's env files (audited)")
    .action(async (target: string, options: { name?: string; allowEnvKeys?: boolean }, command: Command) =>
      runClient(command, async (session) => (await actions.codebase()).addCodebase(session, target, options)),
    );
  clientCommand(codebase, 'list', 'the registered codebases').action(async (_options, command: Command) =>
    runClient(command, async (session) => (await actions.codebase()).listCodebases(session)),
  );
  clientCommand(codebase, 'remove <id|name>', 'delete a codebase, its worktrees and its runs').action(
    async (ref: string, _options, command: Command) =>
      runClient(command, async (session) => (await actions.codebase()).removeCodebase(session, ref)),
  );

  const workflow = program.command('workflow').description('workflow definitions and starting runs');
  clientCommand(workflow, 'list', 'the workflows you can run')
    .option('--codebase <id|name>', "include this codebase's own workflows")
    .action(async (options: { codebase?: string }, command: Command) =>
      runClient(command, async (session) => (await actions.workflow()).listWorkflows(session, options)),
    );
  clientCommand(workflow, 'show <name>', 'print a workflow definition')
    .option('--codebase <id|name>', "look in this codebase's workflows too")
    .action(async (name: string, options: { codebase?: string }, command: Command) =>
      runClient(command, async (session) => (await actions.workflow()).showWorkflow(session, name, options)),
    );
  clientCommand(
    workflow,
    'validate <file>',
    "check a definition file with the server's rules (exit 65 when invalid)",
  ).action(async (file: string, _options, command: Command) =>
    runClient(command, async (session) => (await actions.workflow()).validateWorkflowFile(session, file)),
  );
  clientCommand(
    workflow,
    'run <name> [message...]',
    'start a run and follow it to its end; the exit code is its outcome',
  )
    .option('--codebase <id|name>', 'run on this codebase')
    .option('--conversation <id>', 'run in this conversation')
    .option('--follow', 'follow the run live (the default)')
    .option('--detach', 'print the run id and return at once (exit 0 once started)')
    .option('--no-wait', 'stop with exit 3 when the run waits for approval')
    .option('--logs', 'show node logs and tool calls while following')
    .option(
      '--input <key=value>',
      "a value for one of the workflow's inputs (repeat for more)",
      (pair: string, earlier: string[] = []) => [...earlier, pair],
    )
    .action(
      async (
        name: string,
        words: string[],
        options: Record<string, boolean | string | string[]>,
        command: Command,
      ) =>
        runClient(command, async (session) =>
          (await actions.workflow()).runWorkflow(session, name, words, options),
        ),
    );

  const run = program
    .command('run')
    .description('workflow runs: watch, approve, reject, cancel, resume, abandon, re-run, delete');
  clientCommand(run, 'list', 'runs, newest first')
    .addOption(new Option('--status <status>', 'only these statuses (comma-separated)'))
    .option('--workflow <name>', 'only runs of this workflow')
    .option('--codebase <id>', 'only runs on this codebase')
    .option('--limit <n>', 'how many (default 50, at most 200)')
    .action(async (options: Record<string, string>, command: Command) =>
      runClient(command, async (session) => (await actions.run()).listRuns(session, options)),
    );
  clientCommand(run, 'show <id>', 'one run').action(async (id: string, _options, command: Command) =>
    runClient(command, async (session) => (await actions.run()).showRun(session, id)),
  );
  clientCommand(run, 'logs <id>', "a run's history with node logs and tool calls")
    .option('--follow', 'keep following until the run ends; the exit code is its outcome')
    .action(async (id: string, options: { follow?: boolean }, command: Command) =>
      runClient(command, async (session) => (await actions.run()).runLogs(session, id, options)),
    );
  clientCommand(run, 'approve <id>', 'approve the gate the run waits at')
    .option('--comment <text>', 'a comment (the gate output when it captures the response)')
    .action(async (id: string, options: { comment?: string }, command: Command) =>
      runClient(command, async (session) =>
        (await actions.run()).operateRun(session, 'approve', id, options),
      ),
    );
  clientCommand(run, 'reject <id>', 'reject the gate the run waits at')
    .requiredOption('--reason <text>', 'why')
    .action(async (id: string, options: { reason: string }, command: Command) =>
      runClient(command, async (session) => (await actions.run()).operateRun(session, 'reject', id, options)),
    );
  for (const [name, description] of [
    ['cancel', 'cancel a running or paused run'],
    ['resume', 'run a failed run again, keeping its completed nodes'],
    ['abandon', 'stop a run for good, whatever it is doing'],
  ] as const) {
    clientCommand(run, `${name} <id>`, description).action(async (id: string, _options, command: Command) =>
      runClient(command, async (session) => (await actions.run()).operateRun(session, name, id)),
    );
  }
  clientCommand(
    run,
    'rerun <id>',
    'start an ended run again: same workflow, message and inputs, same conversation',
  )
    .option('--follow', 'follow the new run to its end; the exit code is its outcome')
    .action(async (id: string, options: { follow?: boolean }, command: Command) =>
      runClient(command, async (session) => (await actions.run()).rerunRun(session, id, options)),
    );
  clientCommand(run, 'delete <id>', 'delete a finished run and its events').action(
    async (id: string, _options, command: Command) =>
      runClient(command, async (session) => (await actions.run()).deleteRun(session, id)),
  );

  const schedule = program
    .command('schedule')
    .description('workflow schedules: list, pause, unpause, fire now');
  clientCommand(schedule, 'list', 'every workflow schedule, with when it fires next').action(
    async (_options, command: Command) =>
      runClient(command, async (session) => (await actions.schedule()).listSchedules(session)),
  );
  for (const [name, description] of [
    ['pause', 'stop a schedule firing until it is unpaused'],
    ['unpause', 'let a paused schedule fire again'],
  ] as const) {
    clientCommand(schedule, `${name} <id>`, description)
      .option('--note <text>', 'why (shown with the schedule)')
      .action(async (id: string, options: { note?: string }, command: Command) =>
        runClient(command, async (session) =>
          (await actions.schedule()).operateSchedule(session, name, id, options),
        ),
      );
  }
  clientCommand(schedule, 'trigger <id>', 'fire a schedule now, paused or not').action(
    async (id: string, _options, command: Command) =>
      runClient(command, async (session) =>
        (await actions.schedule()).operateSchedule(session, 'trigger', id),
      ),
  );

  const config = program.command('config').description('the configuration as it applies');
  clientCommand(config, 'show', 'the configuration (never its secrets)')
    .option('--codebase <id>', "with this codebase's .cairn/config.yaml")
    .action(async (options: { codebase?: string }, command: Command) =>
      runClient(command, async (session) => (await actions.config()).showConfig(session, options)),
    );
  clientCommand(
    config,
    'set <key> <value>',
    'change an assistant setting: assistants.<claude|codex>.<setting> <value>',
  ).action(async (key: string, value: string, _options, command: Command) =>
    runClient(command, async (session) => (await actions.config()).setConfig(session, key, value)),
  );
}
