import { spawn, type ChildProcess } from 'node:child_process';

/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 1_500;

export interface GroupSpawnOptions {
  cwd?: string;
  env: Record<string, string | undefined>;
}

/**
 * Starts a command as the leader of a new process group (detached), so everything it starts
 * (shells, test runners, dev servers) can be killed with it: signals to the negative pid reach
 * the whole group, which the SDKs' own child.kill() does not.
 */
export function spawnProcessGroup(command: string, args: string[], options: GroupSpawnOptions): ChildProcess {
  return spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });
}

/** Signal 0 only asks whether any member is left. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
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
