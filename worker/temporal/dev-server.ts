import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { searchAttributeFlags } from '../../infra/temporal/search-attributes.js';

export interface DevServerOptions {
  cliPath: string;
  /** SQLite file of the server; omit for an in-memory server (tests). */
  databaseFile?: string;
  port: number;
  /** Web UI port; omit to run headless. */
  uiPort?: number;
  namespace: string;
  readyTimeoutMs?: number;
  /** Lines the server prints (warnings and errors only). */
  onOutput?: (line: string) => void;
}

export interface RunningDevServer {
  address: string;
  uiUrl?: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * An activity scheduled on its workflow's own queue (a run's bash node) goes straight back to
 * the worker that scheduled it: about half of each node's dispatch latency.
 */
export const EAGER_DISPATCH_FLAGS = ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'];

/**
 * The dev server opens its file in SQLite's default rollback-journal mode: each transaction copies
 * the pages it changes to a journal, syncs it, writes the file, syncs it and deletes the journal.
 * In WAL mode a commit is one append to the log and one sync; synchronous stays at its default
 * (FULL), so a commit survives a power cut as before.
 */
export const DATABASE_FILE_PRAGMAS = ['--sqlite-pragma', 'journal_mode=wal'];

/** Starts `temporal server start-dev` and resolves once its frontend answers. */
export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port)];
  args.push('--namespace', options.namespace, '--log-level', 'warn', ...searchAttributeFlags());
  args.push(...EAGER_DISPATCH_FLAGS);
  if (options.databaseFile) args.push('--db-filename', options.databaseFile, ...DATABASE_FILE_PRAGMAS);
  if (options.uiPort) args.push('--ui-port', String(options.uiPort), '--ui-ip', '127.0.0.1');
  else args.push('--headless');

  const child = spawn(options.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // If Cairn exits without stopping it (a crash, process.exit), the server must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let exited: string | undefined;
  let recentOutput = '';
  const onLine = (chunk: Buffer) => {
    const text = chunk.toString();
    recentOutput = (recentOutput + text).slice(-4000);
    for (const line of text.split('\n').filter(Boolean)) options.onOutput?.(line);
  };
  child.stdout?.on('data', onLine);
  child.stderr?.on('data', onLine);
  child.on('exit', (code, signal) => {
    exited = `exited with ${signal ?? code}`;
  });
  const spawnFailure = new Promise<never>((_, reject) => child.once('error', reject));
  spawnFailure.catch(() => undefined);

  const address = `127.0.0.1:${options.port}`;
  try {
    await Promise.race([
      waitUntilReady(address, options.readyTimeoutMs ?? 60_000, () => exited),
      spawnFailure,
    ]);
  } catch (error) {
    await stopChild(child);
    const detail = recentOutput.trim() ? `\n${recentOutput.trim()}` : '';
    throw new Error(`Temporal dev server did not start: ${(error as Error).message}${detail}`, {
      cause: error,
    });
  }
  return {
    address,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    pid: child.pid ?? -1,
    stop: () => stopChild(child),
  };
}

async function waitUntilReady(address: string, timeoutMs: number, exited: () => string | undefined) {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const status = exited();
    if (status) throw new Error(`the server ${status}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await sleep(200);
    }
  }
  throw new Error(
    `no answer on ${address} within ${timeoutMs} ms (${(lastError as Error)?.message ?? 'unknown'})`,
  );
}

/** SIGTERM lets the server flush its SQLite file; SIGKILL if it does not stop in time. */
function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
