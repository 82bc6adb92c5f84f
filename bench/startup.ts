// Measures how long `cairn start` takes until GET /health answers, on a fresh home (first start:
// migrations, workflow bundle) and again on the same home (restart: everything cached).
// Prints JSON. Target (issue 2): ready in under 20 s once the Temporal CLI is cached.
import { performance } from 'node:perf_hooks';
import { hostname, cpus } from 'node:os';
import { freePort } from '../worker/temporal/ports.js';
import { spawnCairn, waitForOk } from '../test/support/cairn-process.js';
import { makeTempDir, makeTempHome } from '../test/support/temp-dirs.js';

async function timeOneStart(home: string, cwd: string): Promise<number> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, CAIRN_HOME: home, PORT: String(port), LOG_LEVEL: 'warn' };
  delete env.TEMPORAL_ADDRESS;
  delete env.DATABASE_URL;
  const started = performance.now();
  const cairn = spawnCairn(['start'], { env, cwd });
  try {
    await waitForOk(`http://127.0.0.1:${port}/health`, cairn, 15 * 60_000);
    return performance.now() - started;
  } finally {
    await cairn.stop('SIGTERM');
  }
}

const runs = Number(process.env.BENCH_RUNS ?? 3);
const home = makeTempHome();
const cwd = makeTempDir();
try {
  const firstStartMs = await timeOneStart(home.home, cwd.path);
  const restartMs: number[] = [];
  for (let i = 0; i < runs; i += 1) restartMs.push(await timeOneStart(home.home, cwd.path));
  restartMs.sort((a, b) => a - b);
  const result = {
    benchmark: 'startup',
    date: new Date().toISOString(),
    machine: { host: hostname(), cpus: cpus().length, cpu: cpus()[0]?.model },
    firstStartMs: Math.round(firstStartMs),
    restartMedianMs: Math.round(restartMs[Math.floor(restartMs.length / 2)]!),
    restartMaxMs: Math.round(restartMs[restartMs.length - 1]!),
    targetMs: 20_000,
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  home.cleanup();
  cwd.cleanup();
}
