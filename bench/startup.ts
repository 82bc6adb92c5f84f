// Measures how long `cairn start` takes until GET /health answers, on a fresh home (first start:
// migrations, workflow bundle) and again on the same home (restart: everything cached).
// Prints JSON. Target (issue 12, AMENDMENTS A.4): a warm restart ready in under 3 s median.
import { performance } from 'node:perf_hooks';
import { freePort } from '../worker/temporal/ports.js';
import { spawnCairn, standaloneCairnEnv, waitForOk } from '../test/support/cairn-process.js';
import { makeTempDir, makeTempHome } from '../test/support/temp-dirs.js';
import { printFigures } from './support.js';

async function timeOneStart(home: string, cwd: string): Promise<number> {
  const port = await freePort();
  const env = standaloneCairnEnv(home, port);
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
  printFigures('startup', {
    firstStartMs: Math.round(firstStartMs),
    restartMedianMs: Math.round(restartMs[Math.floor(restartMs.length / 2)]!),
    restartMaxMs: Math.round(restartMs[restartMs.length - 1]!),
    targetMs: 3_000,
  });
} finally {
  home.cleanup();
  cwd.cleanup();
}
