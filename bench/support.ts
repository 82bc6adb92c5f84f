// What every benchmark shares: summary statistics, the JSON it prints, a standalone
// `cairn start` on a fresh home to measure against.
import { cpus, hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../worker/temporal/ports.js';
import { toolCacheDir } from '../config/paths.js';
import { provideTemporal } from '../worker/temporal/provide-temporal.js';
import { spawnCairn, standaloneCairnEnv, waitForOk, waitForOutput } from '../test/support/cairn-process.js';
import { makeTempDir, makeTempHome } from '../test/support/temp-dirs.js';

export const round = (value: number) => Math.round(value * 10) / 10;

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

export function median(values: number[]): number {
  return sorted(values)[Math.floor(values.length / 2)]!;
}

export function percentile(values: number[], p: number): number {
  return sorted(values)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
}

export function stats(values: number[]) {
  return {
    median: round(median(values)),
    p95: round(percentile(values, 0.95)),
    min: round(Math.min(...values)),
    max: round(Math.max(...values)),
    samples: values.length,
  };
}

/** Prints a benchmark's figures as JSON, with the date and the machine they were taken on. */
export function printFigures(benchmark: string, figures: Record<string, unknown>): void {
  const machine = { host: hostname(), cpus: cpus().length, cpu: cpus()[0]?.model };
  console.log(JSON.stringify({ benchmark, date: new Date().toISOString(), machine, ...figures }, null, 2));
}

/** A JSON call that fails loudly: a benchmark must not measure error answers. */
export async function callJson<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * Runs `measure` against a real `cairn start` (embedded Temporal, SQLite) on a fresh home, its
 * environment extended by `env` (the fake assistants'), and stops it afterwards.
 */
export async function withStandaloneCairn<T>(
  env: Record<string, string>,
  measure: (base: string) => Promise<T>,
): Promise<T> {
  const home = makeTempHome();
  const cwd = makeTempDir();
  const port = await freePort();
  // BENCH_NODE_ARGS: options for the server's Node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/profiles`.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean);
  const cairn = spawnCairn(['start'], {
    env: standaloneCairnEnv(home.home, port, env),
    cwd: cwd.path,
    nodeArgs,
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForOk(`${base}/health`, cairn, 15 * 60_000);
    return await measure(base);
  } finally {
    await cairn.stop('SIGTERM');
    home.cleanup();
    cwd.cleanup();
  }
}

/**
 * `withStandaloneCairn`, split: a Temporal dev server of its own, then `cairn api` and
 * `cairn worker` as two processes on one home (SQLite) and that server, as a scaled-out setup runs.
 */
export async function withSplitCairn<T>(
  env: Record<string, string>,
  measure: (base: string) => Promise<T>,
): Promise<T> {
  const home = makeTempHome();
  const cwd = makeTempDir();
  const temporal = await provideTemporal({
    namespace: 'default',
    env: process.env,
    toolCacheDir: toolCacheDir(process.env),
    ports: 'random',
    ui: false,
    say: (line) => process.stderr.write(`${line}\n`),
  });
  const port = await freePort();
  const split = (role: string, rolePort: number) => {
    const roleEnv = standaloneCairnEnv(home.home, rolePort, env);
    roleEnv.TEMPORAL_ADDRESS = temporal.address;
    const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean);
    return spawnCairn([role], { env: roleEnv, cwd: cwd.path, nodeArgs });
  };
  const api = split('api', port);
  const base = `http://127.0.0.1:${port}`;
  let worker: ReturnType<typeof spawnCairn> | undefined;
  try {
    // The API migrates the database first; the worker starts on the migrated one.
    await waitForOk(`${base}/health`, api, 15 * 60_000);
    worker = split('worker', await freePort());
    await waitForOutput(worker, 'worker ready', 5 * 60_000);
    return await measure(base);
  } finally {
    await Promise.all([api.stop('SIGTERM'), worker?.stop('SIGTERM')]);
    await temporal.stop();
    home.cleanup();
    cwd.cleanup();
  }
}

/** A V8 CPU profile (the inspector's Profiler.stop result), as far as the profile tools read it. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Sends one message to a new conversation and waits for the fake assistant's answer: a Cairn in
 * use has run activities, which run in AsyncLocalStorage (Temporal's activity context).
 */
export async function answerOneMessage(base: string): Promise<void> {
  const conversation = await callJson<{ platform_conversation_id: string }>(
    base,
    'POST',
    '/api/conversations',
    {},
  );
  const path = `/api/conversations/${conversation.platform_conversation_id}`;
  await callJson(base, 'POST', `${path}/message`, { message: '[fake:reply ready]' });
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
    const page = await callJson<{ items: unknown[] }>(base, 'GET', `${path}/messages`);
    const messages = page.items;
    if (messages.length >= 2) return;
  }
  throw new Error(`${base}: the first message was not answered within a minute`);
}
