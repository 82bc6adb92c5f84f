import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';

// Assistants and git start helpers of their own (shells, test runners, ssh, index-pack). Each
// command Cairn runs is therefore the leader of a new process group, and stopping it signals
// the whole group: a plain child.kill() would leave the helpers running.

/** How long a group gets between SIGTERM and SIGKILL when it is asked to stop politely. */
export const KILL_GRACE_MS = 1_500;

export interface GroupSpawnOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv | Record<string, string | undefined>;
  stdio?: StdioOptions;
}

// Groups still running; killed if this process exits first, since detached they would outlive it.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function forgetOnExit(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
  }
  liveGroups.add(pid);
  child.once('exit', () => liveGroups.delete(pid));
}

/** Told of every process group started within `observeProcessGroups` (an activity records its own). */
export interface ProcessGroupObserver {
  started(pgid: number): void;
  /** The leader exited; what it left in the group was signalled by whoever started it. */
  ended(pgid: number): void;
}

const observers = new AsyncLocalStorage<ProcessGroupObserver>();

/** Runs `work` with every process group it starts, however deep in its calls, reported to `observer`. */
export function observeProcessGroups<T>(observer: ProcessGroupObserver, work: () => T): T {
  return observers.run(observer, work);
}

/** Starts a command as the leader of a new process group. */
export function spawnProcessGroup(
  command: string,
  args: readonly string[],
  options: GroupSpawnOptions,
): ChildProcess {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: options.stdio ?? ['pipe', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });
  forgetOnExit(child);
  const observer = observers.getStore();
  const pid = child.pid;
  if (observer && pid !== undefined) {
    observer.started(pid);
    child.once('exit', () => observer.ended(pid));
  }
  return child;
}

/** Sends a signal to every member of a group; false when none is left (signal 0 only asks). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is already gone.
  }
}

/** SIGTERM to the group, then SIGKILL after a grace period; resolves once SIGKILL was sent or not needed. */
export async function killProcessGroup(pgid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  const step = 50;
  for (let waited = 0; waited < graceMs; waited += step) {
    await new Promise((resolve) => setTimeout(resolve, step));
    if (!signalGroup(pgid, 0)) return;
  }
  signalGroup(pgid, 'SIGKILL');
}
