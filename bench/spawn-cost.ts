// What starting a process costs the process that starts it: Node's spawn forks on Linux, and the
// fork copies the parent's page tables inside the spawn() call, on the event loop. So each git
// command, bash node, hook or assistant Cairn starts holds up every request for a time that
// grows with Cairn's resident memory. This measures the synchronous part of spawn('true') after
// growing the heap to each of BENCH_SPAWN_SIZES_MB (0,100,300,600), BENCH_SPAWNS (20) times each.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { printFigures, stats } from './support.js';

const SIZES_MB = (process.env.BENCH_SPAWN_SIZES_MB ?? '0,100,300,600').split(',').map(Number);
const SPAWNS = Number(process.env.BENCH_SPAWNS ?? 20);

/** Memory the process touches (written, so resident), grown to about `megabytes` more than at start. */
const held: Buffer[] = [];
function holdMegabytes(megabytes: number): void {
  while (held.length < megabytes) held.push(Buffer.alloc(1 << 20, 1));
}

const bySize = [];
for (const megabytes of SIZES_MB) {
  holdMegabytes(megabytes);
  const blockedMs: number[] = [];
  for (let index = 0; index < SPAWNS; index++) {
    const started = performance.now();
    const child = spawn('true', { stdio: 'ignore' });
    blockedMs.push(performance.now() - started);
    await once(child, 'exit');
  }
  bySize.push({
    heldMb: megabytes,
    residentMb: Math.round(process.memoryUsage().rss / 1e6),
    spawnBlocksEventLoopMs: stats(blockedMs),
  });
}

printFigures('spawn-cost', {
  command: `node bin/run-ts.mjs bench/spawn-cost.ts (BENCH_SPAWNS=${SPAWNS})`,
  bySize,
});
