// What every benchmark shares: summary statistics, the JSON it prints, a standalone
// `cairn start` on a fresh home to measure against.
import { cpus, hostname } from 'node:os';
import { freePort } from '../worker/temporal/ports.js';
import { spawnCairn, standaloneCairnEnv, waitForOk } from '../test/support/cairn-process.js';
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
