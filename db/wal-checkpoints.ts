import { open, type FileHandle } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * SQLite copies its write-ahead log back into the database file (a checkpoint) inside whichever
 * commit takes the log past 1,000 pages: 7-14 ms of file writes and two fsyncs on the thread that
 * commits, which in Cairn is the event loop every request and stream shares
 * (`bench/sqlite-writes.ts`). With background checkpoints the writer never checkpoints
 * (`wal_autocheckpoint = 0`); a worker thread with a connection of its own does, in PASSIVE mode,
 * which never waits for, nor holds up, the readers or the writer. The thread starts when the log
 * holds that many pages, and ends after a quiet minute, so an idle Cairn carries none of its
 * memory (about 12 MB). Should the thread fail, the writer checkpoints as SQLite does by default.
 */
export interface WalCheckpointOptions {
  /** How often the log's length is looked at. */
  intervalMs?: number;
  /** Pages in the log, not yet copied back, that call for a checkpoint (SQLite's own default). */
  pagesPerCheckpoint?: number;
  /** A thread with nothing to do this long ends. */
  idleStopMs?: number;
  /**
   * Pages in the log past which a checkpoint also makes it start over (RESTART). The log starts
   * over only when a write finds it wholly copied back, which writes that never pause never allow.
   */
  restartAtPages?: number;
  /** Told once when checkpoints go back to the writer, with why. */
  onFallback?(reason: string): void;
}

/** SQLite's default `wal_autocheckpoint`: what the writer goes back to when the thread fails. */
export const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

// The wal-index (the `-shm` file) starts with its header (sqlite.org/walformat.html): the format
// version at byte 0, the last valid frame of the log (mxFrame) at 16, and after two copies of the
// header, the frames already copied back (nBackfill) at 96; in the machine's byte order.
// A 4 KB page per frame: 16,384 pages is a 64 MB log.
const WAL_INDEX_VERSION = 3007000;
export const HEADER_BYTES = 100;

/** The log's last valid frame and how many frames are copied back, or undefined for another format. */
export function walIndexCounts(header: Buffer): { frames: number; backfilled: number } | undefined {
  if (header.length < HEADER_BYTES) return undefined;
  const littleEndian = header.readUInt32LE(0) === WAL_INDEX_VERSION;
  if (!littleEndian && header.readUInt32BE(0) !== WAL_INDEX_VERSION) return undefined;
  const read = (offset: number) => (littleEndian ? header.readUInt32LE(offset) : header.readUInt32BE(offset));
  return { frames: read(16), backfilled: read(96) };
}

const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { fsyncSync, openSync, closeSync } = require('node:fs');
const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
// timeout 0: a checkpoint never waits for the writer or a reader (the next look tries again).
const db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
// The database file's own descriptor: its pages copied back are flushed here, outside any lock.
const file = openSync(workerData.file, 'r');
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    closeSync(file);
    parentPort.close();
    return;
  }
  try {
    // The log starts over when a write finds it wholly copied back: a few more passes catch up
    // with what was written during the first, so that writes that pause briefly allow it.
    let result = db.pragma('wal_checkpoint(PASSIVE)')[0];
    for (let pass = 0; pass < 4 && result.checkpointed < result.log; pass++)
      result = db.pragma('wal_checkpoint(PASSIVE)')[0];
    // Writes that never pause: past the bound, the log is made to start over, only when no writer
    // and no reader is in it (timeout 0: otherwise again next time).
    if (result.log >= workerData.restartAtPages) {
      // RESTART holds the writer off while it copies what is left and syncs the file: both made
      // small first (the pages copied so far flushed now, one more pass), it is a short wait.
      fsyncSync(file);
      db.pragma('wal_checkpoint(PASSIVE)');
      db.pragma('wal_checkpoint(RESTART)');
    }
    parentPort.postMessage({});
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});`;

export class WalCheckpoints {
  private readonly intervalMs: number;
  private readonly pagesPerCheckpoint: number;
  private readonly idleStopMs: number;
  private readonly restartAtPages: number;
  private timer: NodeJS.Timeout | undefined;
  private worker: Worker | undefined;
  private shm: FileHandle | undefined;
  private inFlight = false;
  private lastCheckpointAt = 0;
  private fellBack = false;
  private checkpointsDone = 0;
  private fallBackToWriter: () => Promise<void> = async () => undefined;

  constructor(
    private readonly file: string,
    private readonly options: WalCheckpointOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 250;
    this.pagesPerCheckpoint = options.pagesPerCheckpoint ?? SQLITE_AUTOCHECKPOINT_PAGES;
    this.idleStopMs = options.idleStopMs ?? 60_000;
    this.restartAtPages = options.restartAtPages ?? 16_384;
  }

  /** What a new writer connection sets `wal_autocheckpoint` to: 0 while this thread does them. */
  get writerAutocheckpoint(): number {
    return this.fellBack ? SQLITE_AUTOCHECKPOINT_PAGES : 0;
  }

  /** Whether the writer checkpoints again (the thread failed, or the log could not be read). */
  get fallenBack(): boolean {
    return this.fellBack;
  }

  /** Checkpoints the thread has made so far. */
  get checkpoints(): number {
    return this.checkpointsDone;
  }

  /** Whether the thread runs now. */
  get threadRunning(): boolean {
    return this.worker !== undefined;
  }

  /** Starts looking at the log; `fallBack` turns the writer's own checkpoints back on. */
  start(fallBack: () => Promise<void>): void {
    this.fallBackToWriter = fallBack;
    this.timer = setInterval(() => void this.look(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops looking and ends the thread (the writer's last close checkpoints what is left). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.endThread();
    await this.shm?.close().catch(() => undefined);
    this.shm = undefined;
  }

  private async look(): Promise<void> {
    if (this.fellBack || this.inFlight || !this.timer) return;
    this.inFlight = true;
    try {
      const pending = await this.pagesPending();
      if (pending === undefined) return;
      if (pending >= this.pagesPerCheckpoint) await this.checkpoint();
      else if (this.worker && Date.now() - this.lastCheckpointAt > this.idleStopMs) await this.endThread();
    } catch (error) {
      await this.fail(`background checkpoints stopped: ${(error as Error).message}`);
    } finally {
      this.inFlight = false;
    }
  }

  /** Pages in the log not yet copied back; undefined before the log exists. */
  private async pagesPending(): Promise<number | undefined> {
    if (!this.shm) {
      try {
        this.shm = await open(`${this.file}-shm`, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    }
    const header = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await this.shm.read(header, 0, HEADER_BYTES, 0);
    // A file just made, not yet written by the connection that made it: nothing to read yet.
    if (bytesRead < HEADER_BYTES || header.readUInt32LE(0) === 0) return undefined;
    const counts = walIndexCounts(header);
    if (!counts) throw new Error('the wal-index header is not one this code reads');
    return Math.max(0, counts.frames - counts.backfilled);
  }

  private checkpoint(): Promise<void> {
    const worker = this.startedThread();
    return new Promise((resolve, reject) => {
      const onExit = () => reject(new Error('the checkpoint thread ended'));
      worker.once('exit', onExit);
      worker.once('message', (answer: { error?: string }) => {
        worker.off('exit', onExit);
        if (answer.error !== undefined) return reject(new Error(answer.error));
        this.checkpointsDone += 1;
        this.lastCheckpointAt = Date.now();
        resolve();
      });
      worker.postMessage('checkpoint');
    });
  }

  private startedThread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(CHECKPOINTER_SOURCE, {
      eval: true,
      workerData: { file: this.file, restartAtPages: this.restartAtPages },
    });
    worker.unref();
    worker.on('error', () => undefined); // the pending checkpoint's exit handler reports it
    worker.once('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    this.worker = worker;
    return worker;
  }

  private async endThread(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage('stop');
    await exited;
  }

  private async fail(reason: string): Promise<void> {
    this.fellBack = true;
    clearInterval(this.timer);
    this.options.onFallback?.(reason);
    await this.endThread().catch(() => undefined);
    await this.fallBackToWriter().catch(() => undefined);
  }
}
