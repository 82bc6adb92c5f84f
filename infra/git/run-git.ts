import { withSpan } from '../../config/tracing.js';
import { scrubCredentials } from './credentials.js';
import { runInProcessGroup, type ProcessRunEnd } from '../processes/run-process-group.js';

export interface RunGitOptions {
  cwd: string;
  /** Extra environment for git, e.g. GIT_CONFIG_* credentials; merged over the process env. */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** Kills git after this long; default two minutes (network operations included). */
  timeoutMs?: number;
  /** Removes credentials from text bound for an error message or a log line. */
  scrub?: (text: string) => string;
}

/** A git command that failed: the command as shown never contains `-c` values or URL credentials. */
export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    /** `git ...` with every `-c` value masked and credentials scrubbed. */
    readonly command: string,
    /** The exit code, or null when git was killed (timeout, abort) or could not start. */
    readonly exitCode: number | null,
    /** git's stderr, scrubbed. */
    readonly stderr: string,
    detail: string,
  ) {
    super(`${command} failed (${detail})${stderr ? `: ${stderr}` : ''}`);
  }
}

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** What an error keeps of git's standard error: its end says what went wrong. */
const STDERR_TAIL_BYTES = 64 * 1024;

// Variables a git hook or a parent git process may have set; inherited, they would point our
// commands at another repository than `cwd`.
const INHERITED_REPOSITORY_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_PREFIX',
];

/** The values given with `-c` (usually auth headers): masked in the command, removed from stderr. */
function configValues(args: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '-c' && i + 1 < args.length) values.push(args[++i] ?? '');
    else if (arg.startsWith('-c') && arg.length > 2) values.push(arg.slice(2));
  }
  return values.filter((value) => value.length > 0);
}

function displayCommand(args: readonly string[]): string {
  const shown: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '-c' && i + 1 < args.length) {
      shown.push('-c', '***');
      i++;
    } else if (arg.startsWith('-c') && arg.length > 2) {
      shown.push('-c***');
    } else {
      shown.push(arg);
    }
  }
  return ['git', ...shown].join(' ');
}

function gitEnvironment(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_REPOSITORY_VARIABLES) delete env[name];
  // Never wait for a password prompt, and keep messages in English so they read the same everywhere.
  return { ...env, GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never', LC_ALL: 'C', ...extra };
}

function failureDetail(end: ProcessRunEnd, timeoutMs: number): string {
  switch (end.outcome) {
    case 'exited':
      return `exit ${end.exitCode}`;
    case 'aborted':
      return 'aborted';
    case 'timed_out':
      return `timed out after ${timeoutMs} ms`;
    case 'output_too_large':
      return `output over ${MAX_OUTPUT_BYTES} bytes`;
    case 'signalled':
      return `killed by ${end.signal}`;
    case 'spawn_failed':
      return (end.error as NodeJS.ErrnoException).code ?? end.error.message;
  }
}

/**
 * The one way Cairn runs git: no shell (arguments reach git as they are), a timeout, an abort
 * signal that stops git and every helper it started, and errors that never show credentials.
 * Resolves with git's stdout, untrimmed.
 */
export async function runGit(args: readonly string[], options: RunGitOptions): Promise<string> {
  return withSpan(`git ${subcommand(args)}`, { 'process.executable.name': 'git' }, () =>
    runGitOnce(args, options),
  );
}

/** The git command run (`clone`, `worktree`), for the span's name: the first word after the options. */
function subcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '-c' || arg === '-C') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return 'command';
}

async function runGitOnce(args: readonly string[], options: RunGitOptions): Promise<string> {
  const secrets = configValues(args);
  const scrub = (text: string): string => {
    const clean = scrubCredentials(text, secrets);
    return options.scrub ? options.scrub(clean) : clean;
  };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const end = await runInProcessGroup('git', args, {
    cwd: options.cwd,
    env: gitEnvironment(options.env),
    signal: options.signal,
    timeoutMs,
    maxStdoutBytes: MAX_OUTPUT_BYTES,
    stderrTailBytes: STDERR_TAIL_BYTES,
    // Git's automatic gc detaches into the background on purpose; timeouts and aborts still stop the group.
    stopGroupOnExit: false,
  });
  if (end.outcome === 'exited' && end.exitCode === 0) return end.stdout;
  const exitCode = end.outcome === 'exited' ? end.exitCode : null;
  throw new GitError(
    scrub(displayCommand(args)),
    exitCode,
    scrub(end.stderrTail.trim()),
    scrub(failureDetail(end, timeoutMs)),
  );
}

/** Whether git exits 0; for probes such as `rev-parse --verify`, where failure is an answer. */
export async function gitSucceeds(args: readonly string[], options: RunGitOptions): Promise<boolean> {
  return (await gitOutputOrUndefined(args, options)) !== undefined;
}

/**
 * git's trimmed stdout, or undefined when git answers with a non-zero exit (not a repository,
 * no such ref); for questions whose "no" is an answer. Aborts and timeouts still throw.
 */
export async function gitOutputOrUndefined(
  args: readonly string[],
  options: RunGitOptions,
): Promise<string | undefined> {
  try {
    return (await runGit(args, options)).trim();
  } catch (error) {
    if (error instanceof GitError && error.exitCode !== null) return undefined;
    throw error;
  }
}
