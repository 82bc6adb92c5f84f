import type { ChildProcess } from 'node:child_process';
import { killProcessGroup, signalGroup, spawnProcessGroup } from './process-groups.js';

export interface ProcessRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv | Record<string, string>;
  signal?: AbortSignal;
  timeoutMs: number;
  /** More standard output than this stops the script. */
  maxStdoutBytes: number;
  /** Only the end of standard error is kept: it says why a script failed. */
  stderrTailBytes: number;
  /**
   * Kill what is left of the group once the command itself exits (default true): a node's
   * background helpers must not outlive it. Git leaves this off, since its automatic gc
   * detaches on purpose.
   */
  stopGroupOnExit?: boolean;
  /** Sees every chunk of output as it arrives (a node's live log); the result is unchanged. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

export type ProcessRunEnd =
  | { outcome: 'exited'; exitCode: number; stdout: string; stderrTail: string }
  | { outcome: 'signalled'; signal: string; stdout: string; stderrTail: string }
  | { outcome: 'aborted' | 'timed_out' | 'output_too_large'; stdout: string; stderrTail: string }
  | { outcome: 'spawn_failed'; error: Error; stdout: string; stderrTail: string };

/** After the script itself ended, how long helpers outside its group may keep its pipes open. */
const PIPE_DRAIN_MS = 2_000;

/**
 * Runs `command` (git, a node's bash script) as the leader of its own process group, with no stdin. A timeout, an abort or
 * too much output stops the whole group (SIGTERM, then SIGKILL); so does the script's own end,
 * since a node's background helpers must not outlive it (nor hold its output pipes open).
 * Always resolves.
 */
export function runInProcessGroup(
  command: string,
  args: readonly string[],
  options: ProcessRunOptions,
): Promise<ProcessRunEnd> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const stderr = new TailBuffer(options.stderrTailBytes);
    let stopReason: 'aborted' | 'timed_out' | 'output_too_large' | undefined;
    let spawnError: Error | undefined;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let child: ChildProcess;

    const stop = (reason: NonNullable<typeof stopReason>) => {
      if (stopReason || exited) return;
      stopReason = reason;
      if (child.pid !== undefined) void killProcessGroup(child.pid);
    };
    const onAbort = () => stop('aborted');

    try {
      child = spawnProcessGroup(command, args, {
        cwd: options.cwd,
        env: options.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      resolve({ outcome: 'spawn_failed', error: error as Error, stdout: '', stderrTail: '' });
      return;
    }
    const timer = setTimeout(() => stop('timed_out'), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) stop('aborted');

    child.stdout?.on('data', (chunk: Buffer) => {
      if (stopReason === 'output_too_large') return;
      options.onOutput?.('stdout', chunk);
      stdoutBytes += chunk.length;
      if (stdoutBytes > options.maxStdoutBytes) stop('output_too_large');
      else stdout.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      options.onOutput?.('stderr', chunk);
      stderr.push(chunk);
    });
    child.on('error', (error) => {
      spawnError = error;
    });
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      if (child.pid !== undefined && options.stopGroupOnExit !== false) signalGroup(child.pid, 'SIGKILL');
      // A helper that left the group can still hold the pipes: stop waiting for it.
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, PIPE_DRAIN_MS);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const output = {
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderrTail: stderr.text(),
      };
      const exitCode = exited?.code ?? code;
      const exitSignal = exited?.signal ?? signal;
      if (spawnError && child.pid === undefined)
        resolve({ outcome: 'spawn_failed', error: spawnError, ...output });
      else if (stopReason) resolve({ outcome: stopReason, ...output });
      else if (exitCode !== null) resolve({ outcome: 'exited', exitCode, ...output });
      else resolve({ outcome: 'signalled', signal: exitSignal ?? 'unknown', ...output });
    });
  });
}

/** The last `limit` bytes of a stream, kept as chunks so a long stream costs no quadratic copying. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private length = 0;
  private cut = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    while (this.length - this.chunks[0]!.length >= this.limit) {
      this.length -= this.chunks.shift()!.length;
      this.cut = true;
    }
  }

  /** The tail as text; when the start was cut, from the first whole line on (no half a URL or character). */
  text(): string {
    let tail = Buffer.concat(this.chunks);
    if (tail.length > this.limit) {
      tail = tail.subarray(tail.length - this.limit);
      this.cut = true;
    }
    const text = tail.toString('utf8');
    if (!this.cut) return text;
    const newline = text.indexOf('\n');
    return newline === -1 ? text.replace(/^\uFFFD+/, '') : text.slice(newline + 1);
  }
}
