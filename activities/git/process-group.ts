import type { ChildProcess } from 'node:child_process';
import { signalGroup, spawnProcessGroup } from '../processes/process-groups.js';

export interface GroupRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  timeoutMs: number;
  maxOutputBytes: number;
}

export type GroupRunEnd =
  | { outcome: 'exited'; exitCode: number; stdout: string; stderr: string }
  | { outcome: 'aborted' | 'timed_out' | 'output_too_large'; stdout: string; stderr: string }
  | { outcome: 'signalled'; signal: string; stdout: string; stderr: string }
  | { outcome: 'spawn_failed'; error: Error; stdout: string; stderr: string };

/**
 * Runs a command as the leader of its own process group and, on abort or timeout, kills the
 * whole group: git's helpers (ssh, git-remote-https, index-pack) would otherwise outlive it.
 * Always resolves, once the process has been reaped and its output pipes are closed.
 */
export function runInProcessGroup(
  command: string,
  args: readonly string[],
  options: GroupRunOptions,
): Promise<GroupRunEnd> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outputBytes = 0;
    let stopReason: 'aborted' | 'timed_out' | 'output_too_large' | undefined;
    let spawnError: Error | undefined;
    let child: ChildProcess;
    const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');

    const stop = (reason: NonNullable<typeof stopReason>) => {
      stopReason ??= reason;
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    };
    const onAbort = () => stop('aborted');

    try {
      child = spawnProcessGroup(command, args, {
        cwd: options.cwd,
        env: options.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      resolve({ outcome: 'spawn_failed', error: error as Error, stdout: '', stderr: '' });
      return;
    }
    const timer = setTimeout(() => stop('timed_out'), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) stop('aborted');

    const collect = (chunks: Buffer[]) => (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > options.maxOutputBytes) stop('output_too_large');
      else chunks.push(chunk);
    };
    child.stdout?.on('data', collect(stdout));
    child.stderr?.on('data', collect(stderr));
    child.on('error', (error) => {
      spawnError = error;
    });
    // 'close' comes after the exit and after every holder of the pipes (the group) is gone.
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const output = { stdout: text(stdout), stderr: text(stderr) };
      if (spawnError && child.pid === undefined)
        resolve({ outcome: 'spawn_failed', error: spawnError, ...output });
      else if (stopReason) resolve({ outcome: stopReason, ...output });
      else if (exitCode !== null) resolve({ outcome: 'exited', exitCode, ...output });
      else resolve({ outcome: 'signalled', signal: signal ?? 'unknown', ...output });
    });
  });
}
