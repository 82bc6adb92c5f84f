import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A Cairn killed with SIGKILL cannot stop its embedded Temporal server, which then keeps the
 * history file open. The server's pid is kept beside that file; the next start stops a
 * leftover server of the same file before starting its own.
 */
export function pidFileFor(databaseFile: string): string {
  return `${databaseFile}.pid`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Only a process that still names this database file is ours to stop (pids get reused). */
function servesDatabase(pid: number, databaseFile: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(databaseFile);
  } catch {
    // No /proc (macOS): trust the pid file, written only for this database.
    return isAlive(pid);
  }
}

export async function stopLeftoverServer(databaseFile: string, say: (line: string) => void): Promise<void> {
  const pidFile = pidFileFor(databaseFile);
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return;
  }
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid) && servesDatabase(pid, databaseFile)) {
    say(`[temporal] stopping a Temporal server left running by an earlier Cairn (pid ${pid})...`);
    process.kill(pid, 'SIGTERM');
    for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 200) await sleep(200);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(pidFile, { force: true });
}

export function recordServerPid(databaseFile: string, pid: number): void {
  writeFileSync(pidFileFor(databaseFile), `${pid}\n`);
}

export function forgetServerPid(databaseFile: string): void {
  rmSync(pidFileFor(databaseFile), { force: true });
}
