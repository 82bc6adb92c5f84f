import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processStartTicks } from '../processes/leftover-groups.js';

/** A process that uses a Cairn home: `cairn start`, `api` or `worker`. */
export interface HomeUser {
  pid: number;
  role: string;
  startedAt: string;
}

interface HomeUserRecord extends HomeUser {
  /** With the pid, names the process for good (pids are reused): see processStartTicks. */
  startTicks?: string;
}

function usersFolder(home: string): string {
  return path.join(home, 'run');
}

/**
 * Records that this process uses `home` until the returned function is called (or the process
 * dies: a record whose process is gone counts for nothing). `cairn restore` refuses a home in use.
 */
export function markHomeInUse(home: string, role: string): () => void {
  const folder = usersFolder(home);
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${process.pid}.json`);
  const record: HomeUserRecord = {
    pid: process.pid,
    role,
    startedAt: new Date().toISOString(),
    startTicks: processStartTicks(process.pid),
  };
  writeFileSync(file, `${JSON.stringify(record)}\n`);
  return () => rmSync(file, { force: true });
}

/** The processes that use `home` now; records of dead or reused pids are ignored (and removed). */
export function liveHomeUsers(home: string): HomeUser[] {
  const folder = usersFolder(home);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const live: HomeUser[] = [];
  for (const name of names) {
    const file = path.join(folder, name);
    const record = readRecord(file);
    if (record && isSameProcess(record))
      live.push({ pid: record.pid, role: record.role, startedAt: record.startedAt });
    else rmSync(file, { force: true });
  }
  return live;
}

function readRecord(file: string): HomeUserRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as HomeUserRecord;
    return Number.isInteger(record.pid) && record.pid > 0 ? record : undefined;
  } catch {
    return undefined;
  }
}

function isSameProcess(record: HomeUserRecord): boolean {
  try {
    process.kill(record.pid, 0);
  } catch {
    return false;
  }
  // Without /proc (not Linux) a live pid is all there is to go by.
  const ticks = processStartTicks(record.pid);
  return record.startTicks === undefined || ticks === undefined || ticks === record.startTicks;
}
