// Measures the terminal client's own start: `cairn --help` and `cairn status` against a running
// `cairn start`, wall time and peak memory of the whole process, as a user's shell sees them.
// Target (AMENDMENTS B "17"): both under 300 ms.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { printFigures, stats, withStandaloneCairn } from './support.js';

const CAIRN_BIN = fileURLToPath(new URL('../bin/cairn.mjs', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 10);

/** Wall time (ms) and peak resident memory (MB) of one `cairn <args>`, from GNU time. */
function timeOnce(args: string[], env: NodeJS.ProcessEnv): { ms: number; mb: number } {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, CAIRN_BIN, ...args], {
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`cairn ${args.join(' ')} failed:\n${result.stderr}`);
  const [seconds, kilobytes] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms: seconds! * 1_000, mb: kilobytes! / 1024 };
}

function measure(args: string[], env: NodeJS.ProcessEnv) {
  timeOnce(args, env); // warm the file cache
  const samples = Array.from({ length: runs }, () => timeOnce(args, env));
  return { wallMs: stats(samples.map((one) => one.ms)), peakMb: stats(samples.map((one) => one.mb)) };
}

await withStandaloneCairn({}, async (base) => {
  const env = { ...process.env, CAIRN_URL: base, NO_COLOR: '1' };
  printFigures('client', {
    command: `cairn --help; cairn status (CAIRN_URL=${base}); ${runs} runs each after one warm-up`,
    help: measure(['--help'], env),
    status: measure(['status'], env),
    targetMs: 300,
  });
});
