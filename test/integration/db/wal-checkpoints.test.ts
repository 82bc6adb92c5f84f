import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../../db/connection.js';
import { HEADER_BYTES, WalCheckpoints, walIndexCounts } from '../../../db/wal-checkpoints.js';
import { makeTempDir } from '../../support/temp-dirs.js';

async function until(what: string, done: () => boolean, timeoutMs = 10_000) {
  for (const deadline = Date.now() + timeoutMs; !done();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const logCounts = (file: string) => walIndexCounts(readFileSync(`${file}-shm`).subarray(0, HEADER_BYTES))!;

async function writePages(db: Database, rows: number, from: number) {
  for (let at = from; at < from + rows; at += 10)
    await db
      .knex('scratch')
      .insert(Array.from({ length: 10 }, (_, index) => ({ id: at + index, body: 'x'.repeat(4000) })));
}

describe('SQLite checkpoints in a thread of their own (sqlite)', function () {
  this.timeout(30_000);
  let folder: ReturnType<typeof makeTempDir>;
  let file: string;

  beforeEach(() => {
    folder = makeTempDir();
    file = join(folder.path, 'cairn.db');
  });
  afterEach(() => folder.cleanup());

  it('copies the log back in the thread, never in a commit, the log starts over, and the thread ends when idle', async () => {
    const fallbacks: string[] = [];
    const db = openDatabase({
      sqliteFile: file,
      backgroundCheckpoints: {
        intervalMs: 20,
        pagesPerCheckpoint: 64,
        restartAtPages: 128,
        idleStopMs: 300,
        onFallback: (reason) => fallbacks.push(reason),
      },
    });
    try {
      await db.knex.schema.createTable('scratch', (table) => {
        table.integer('id').primary();
        table.text('body');
      });
      // The writer leaves checkpoints alone: one in a commit would copy these pages back there.
      const [setting] = (await db.knex.raw('pragma wal_autocheckpoint')) as Array<{
        wal_autocheckpoint: number;
      }>;
      expect(setting!.wal_autocheckpoint).to.equal(0);
      await writePages(db, 300, 0);
      await until('a checkpoint by the thread', () => (db.walCheckpoints?.checkpoints ?? 0) >= 1);
      expect(db.walCheckpoints!.threadRunning).to.equal(true);
      await until('the log copied back', () => {
        const counts = logCounts(file);
        return counts.backfilled === counts.frames;
      });
      // A write that finds the whole log copied back starts it over from its first frame.
      const before = logCounts(file).frames;
      expect(before).to.be.greaterThan(64);
      await db.knex('scratch').insert({ id: 1_000, body: 'after' });
      expect(logCounts(file).frames).to.be.below(10);
      await until('the idle thread to end', () => !db.walCheckpoints!.threadRunning);
      // More writes start it again.
      await writePages(db, 300, 2_000);
      await until('a second checkpoint', () => db.walCheckpoints!.checkpoints >= 2);
      expect(fallbacks).to.deep.equal([]);
    } finally {
      await db.close();
    }
    const reopened = openDatabase({ sqliteFile: file });
    try {
      const rows = (await reopened.knex('scratch').count({ count: '*' })) as Array<{ count: number }>;
      expect(rows[0]!.count).to.equal(601);
    } finally {
      await reopened.close();
    }
  });

  it('gives checkpoints back to the writer when the thread cannot make them', async () => {
    // A log that asks for a checkpoint, beside a database file that is not there: the thread's
    // connection cannot open it.
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32LE(3007000, 0);
    header.writeUInt32LE(500, 16);
    writeFileSync(`${file}-shm`, header);
    const reasons: string[] = [];
    let fellBackToWriter = false;
    const checkpoints = new WalCheckpoints(file, {
      intervalMs: 10,
      pagesPerCheckpoint: 100,
      onFallback: (reason) => reasons.push(reason),
    });
    expect(checkpoints.writerAutocheckpoint).to.equal(0);
    checkpoints.start(async () => {
      fellBackToWriter = true;
    });
    try {
      await until('the fallback', () => fellBackToWriter);
      expect(checkpoints.fallenBack).to.equal(true);
      expect(checkpoints.writerAutocheckpoint).to.equal(1000);
      expect(reasons).to.have.length(1);
      expect(reasons[0]).to.match(/background checkpoints stopped/);
    } finally {
      await checkpoints.stop();
    }
  });

  it('reads the wal-index header in either byte order and refuses another format', () => {
    const little = Buffer.alloc(HEADER_BYTES);
    little.writeUInt32LE(3007000, 0);
    little.writeUInt32LE(42, 16);
    little.writeUInt32LE(40, 96);
    expect(walIndexCounts(little)).to.deep.equal({ frames: 42, backfilled: 40 });
    const big = Buffer.alloc(HEADER_BYTES);
    big.writeUInt32BE(3007000, 0);
    big.writeUInt32BE(7, 16);
    expect(walIndexCounts(big)).to.deep.equal({ frames: 7, backfilled: 0 });
    expect(walIndexCounts(Buffer.alloc(HEADER_BYTES))).to.equal(undefined);
    expect(walIndexCounts(Buffer.alloc(10))).to.equal(undefined);
  });
});
