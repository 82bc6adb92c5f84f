import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

// The command as installed (`npm start`, `npm link`): the shell launcher that becomes bin/cairn.mjs.
const CAIRN_LAUNCHER = fileURLToPath(new URL('../../bin/cairn', import.meta.url));
const BUILD_SCRIPT = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));

// The spawned `cairn` runs the compiled build, as `npm start` does, so the tests cover it (paths
// found from dist/, the emitted imports) and each start skips the runtime compiler. The build is
// brought up to date here, once, when a test file that spawns Cairn is loaded: before any test, so
// no test's timeout pays for it and processes started together never find it stale.
const build = spawnSync(process.execPath, [BUILD_SCRIPT, '--if-stale'], { stdio: 'inherit' });
if (build.status !== 0) throw new Error(`building Cairn for the tests failed (exit ${build.status})`);

export interface CairnProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Runs the real `cairn` command as a child process, as a user would. */
export function spawnCairn(
  args: string[],
  options: {
    env: NodeJS.ProcessEnv;
    cwd: string;
    /** Another checkout's bin/cairn.mjs, run by node itself (without the launcher). */
    bin?: string;
    /** Options for Node itself, such as --cpu-prof (which NODE_OPTIONS refuses); runs bin/cairn.mjs without the launcher. */
    nodeArgs?: string[];
    /** Piped to standard input, which is then closed; without it there is no input at all. */
    input?: string;
  },
): CairnProcess {
  const direct = options.bin !== undefined || options.nodeArgs !== undefined;
  const [command, commandArgs] = direct
    ? [process.execPath, [...(options.nodeArgs ?? []), options.bin ?? `${CAIRN_LAUNCHER}.mjs`, ...args]]
    : [CAIRN_LAUNCHER, args];
  const child = spawn(command, commandArgs, {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  return {
    child,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Polls a URL until it answers 200, failing early if the process exits. */
export async function waitForOk(url: string, process: CairnProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitedWith: number | string | undefined;
  void process.exited.then((code) => (exitedWith = code));
  while (Date.now() < deadline) {
    if (exitedWith !== undefined)
      throw new Error(`cairn exited (${exitedWith}) before ${url} answered:\n${process.output()}`);
    try {
      const response = await fetch(url);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${process.output()}`);
}

/** Runs `cairn <args>` to completion and returns its exit code and output. */
export async function runCairn(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; input?: string },
): Promise<{ code: number | string; output: string }> {
  const process = spawnCairn(args, options);
  const code = await process.exited;
  return { code, output: process.output() };
}

/**
 * The environment of a standalone `cairn start` for a test or benchmark: its own home and port,
 * the embedded Temporal server and SQLite (whatever the calling shell says).
 */
export function standaloneCairnEnv(
  home: string,
  port: number,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...extra,
    CAIRN_HOME: home,
    PORT: String(port),
    LOG_LEVEL: 'warn',
  };
  delete env.TEMPORAL_ADDRESS;
  delete env.DATABASE_URL;
  return env;
}

/** Waits until the process has printed `text`, failing early if it exits. */
export async function waitForOutput(process: CairnProcess, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!process.output().includes(text)) {
    if (Date.now() > deadline) throw new Error(`no "${text}" within ${timeoutMs} ms:\n${process.output()}`);
    if (process.child.exitCode !== null) throw new Error(`exited early:\n${process.output()}`);
    await sleep(100);
  }
}
