import { readFileSync } from 'node:fs';
import { signalGroup } from './process-groups.js';

/**
 * When a process started, in clock ticks since boot (field 22 of /proc/<pid>/stat): with the pid,
 * it names one process for good, where a pid alone may be reused. Undefined when the process is
 * gone or /proc is not there (not Linux).
 */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

export type LeftoverKill = 'killed' | 'gone' | 'reused';

/**
 * How long after its recording a group whose leader is gone is still taken for ours. A group id
 * is reused only after pids wrap around; that the new holder starts a group, dies and leaves
 * children behind within this window is not a case to plan for, but days later it could be.
 */
export const LEADERLESS_TRUST_MS = 60 * 60_000;

/**
 * Kills what is left of a process group a dead attempt started. The group is ours when its
 * leader still runs with the start time recorded for it, or when the leader is gone and the
 * record is recent: the kernel does not give a group's id to a new process while any member of
 * that group lives, so whatever still carries the id is one of ours. A leader with another
 * start time is a stranger that got the id after our group had ended: it is left alone.
 */
export function killLeftoverGroup(
  pgid: number,
  startTicks: string | undefined,
  recordedAt: { ms: number; now: number } = { ms: 0, now: 0 },
): LeftoverKill {
  const current = processStartTicks(pgid);
  if (current !== undefined && startTicks !== undefined && current !== startTicks) return 'reused';
  if (current === undefined && recordedAt.now - recordedAt.ms > LEADERLESS_TRUST_MS) return 'gone';
  return signalGroup(pgid, 'SIGKILL') ? 'killed' : 'gone';
}
