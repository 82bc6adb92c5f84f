import type { Knex } from 'knex';
import type { Logger } from '../../config/logger.js';
import { onJournalAppend } from '../../db/journal-signals.js';
import { latestEventId } from '../../db/repositories/events.js';
import { StreamTail, type TailSubscriber } from './stream-tail.js';

export interface JournalHubOptions {
  knex: Knex;
  logger: Logger;
  /**
   * Polling period: the fallback for appends no wake-up reports (another process on SQLite, or
   * a lost Postgres listener).
   */
  pollMs: number;
}

/**
 * Every stream being watched in this process, each tailed once however many clients watch it.
 * Woken by appends in this process and by Postgres notifications; polls as a fallback.
 */
export class JournalHub {
  private readonly tails = new Map<string, StreamTail>();
  private readonly stopListening: () => void;
  private readonly poller: NodeJS.Timeout;

  constructor(private readonly options: JournalHubOptions) {
    this.stopListening = onJournalAppend((streamKey) => this.wake(streamKey));
    this.poller = setInterval(() => {
      for (const key of this.tails.keys()) this.wake(key);
    }, options.pollMs);
    this.poller.unref();
  }

  /** How many clients watch a stream in this process. */
  readers(streamKey: string): number {
    return this.tails.get(streamKey)?.size ?? 0;
  }

  /** How many clients watch any stream in this process. */
  totalReaders(): number {
    let total = 0;
    for (const tail of this.tails.values()) total += tail.size;
    return total;
  }

  /** The newest journal id of a stream: where a client without Last-Event-ID starts. */
  latestId(streamKey: string): Promise<number> {
    return latestEventId(this.options.knex, streamKey);
  }

  /** Starts delivering the stream's events after `afterId`; call the result to stop. */
  async subscribe(streamKey: string, afterId: number, subscriber: TailSubscriber): Promise<() => void> {
    let tail = this.tails.get(streamKey);
    if (!tail) {
      tail = new StreamTail(this.options.knex, streamKey, await latestEventId(this.options.knex, streamKey));
      // Another subscriber may have created it while the id was read.
      tail = this.tails.get(streamKey) ?? tail;
      this.tails.set(streamKey, tail);
    }
    const joined = tail;
    const forgetIfUnused = () => {
      if (joined.size === 0 && this.tails.get(streamKey) === joined) this.tails.delete(streamKey);
    };
    try {
      const leave = await joined.join(subscriber, afterId);
      return () => {
        leave();
        forgetIfUnused();
      };
    } catch (error) {
      forgetIfUnused();
      throw error;
    }
  }

  close(): void {
    this.stopListening();
    clearInterval(this.poller);
    this.tails.clear();
  }

  private wake(streamKey: string): void {
    const tail = this.tails.get(streamKey);
    if (!tail) return;
    tail.pump().catch((error: unknown) => {
      this.options.logger.warn({ event: 'stream.read_failed', streamKey, err: (error as Error).message });
    });
  }
}
