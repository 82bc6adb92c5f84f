// What SQLite's checkpoints cost the event loop: BENCH_WRITES (3000) transactions of five webhook
// receipts (2 KB each, as the code-host door records them), a 1-ms pause every ten, timed one by
// one on the thread that commits, first with SQLite copying its log back inside the commits (its
// default), then with db/wal-checkpoints.ts's thread doing it, BENCH_ROUNDS (2) times each in
// turn on fresh files. Prints per side the median and p99 of a transaction, how many took over
// 3 ms and their sum, the longest, and the log file's size at the end.
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { recordCodeHostDeliveries } from '../db/repositories/code-host-deliveries.js';
import { makeTempDir } from '../test/support/temp-dirs.js';
import { median, percentile, printFigures, round } from './support.js';

const WRITES = Number(process.env.BENCH_WRITES ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const payload = {
  action: 'created',
  comment: { body: '/status', user: { login: 'alice' } },
  padding: 'y'.repeat(2000),
};

async function measure(background: boolean) {
  const folder = makeTempDir();
  const file = join(folder.path, 'cairn.db');
  const db = openDatabase({ sqliteFile: file, backgroundCheckpoints: background });
  try {
    await migrateToLatest(db.knex);
    const times: number[] = [];
    let key = 0;
    for (let write = 0; write < WRITES; write++) {
      const receipts = Array.from({ length: 5 }, () => ({
        platform: 'github',
        requestKey: `request-${key}`,
        deliveryId: `delivery-${key++}`,
        request: payload,
      }));
      const started = performance.now();
      await recordCodeHostDeliveries(db.knex, receipts);
      times.push(performance.now() - started);
      if (write % 10 === 9) await sleep(1);
    }
    const slow = times.filter((ms) => ms > 3);
    return {
      medianMs: Math.round(median(times) * 100) / 100,
      p99Ms: Math.round(percentile(times, 0.99) * 100) / 100,
      over3Ms: slow.length,
      over3MsTotalMs: round(slow.reduce((total, ms) => total + ms, 0)),
      longestMs: round(Math.max(...times)),
      logFileMb: round(statSync(`${file}-wal`).size / 1e6),
      checkpointsByThread: db.walCheckpoints?.checkpoints,
    };
  } finally {
    await db.close();
    rmSync(folder.path, { recursive: true, force: true });
  }
}

const sides: Record<string, unknown[]> = { inTheWriter: [], inAThread: [] };
for (let round = 0; round < ROUNDS; round++) {
  sides.inTheWriter!.push(await measure(false));
  sides.inAThread!.push(await measure(true));
}
printFigures('sqlite-writes', {
  command: `node bin/run-ts.mjs bench/sqlite-writes.ts (${WRITES} transactions of 5 receipts, ${ROUNDS} rounds each way)`,
  ...sides,
});
