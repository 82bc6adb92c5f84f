import type { Knex } from 'knex';
import { readEventsAfter, type JournalEvent } from '../../db/repositories/events.js';

const BATCH = 500;

/** One reader of a stream: replays what it missed, then takes live batches. */
export interface TailSubscriber {
  /** Called with events in journal order, each exactly once. */
  deliver(events: JournalEvent[]): void;
}

interface Member {
  subscriber: TailSubscriber;
  cursor: number;
  /** Live batches that arrived while the member was still replaying. */
  held: JournalEvent[] | undefined;
}

/**
 * Tails one stream of the journal for any number of readers: on each wake-up it reads the new
 * events once and hands them to every reader, so a hundred browsers on a conversation cost one
 * query per change, not a hundred.
 */
export class StreamTail {
  private readonly members = new Set<Member>();
  private reading = false;
  private readAgain = false;

  constructor(
    private readonly knex: Knex,
    readonly streamKey: string,
    /** Journal id the tail has read up to. */
    private cursor: number,
  ) {}

  get size(): number {
    return this.members.size;
  }

  /**
   * Adds a reader that has seen everything up to `afterId`. It joins the live feed first and then
   * replays from the journal, so no event falls between the two; ids it already has are skipped.
   */
  async join(subscriber: TailSubscriber, afterId: number): Promise<() => void> {
    const member: Member = { subscriber, cursor: afterId, held: [] };
    this.members.add(member);
    const leave = () => this.members.delete(member);
    try {
      for (;;) {
        const events = await readEventsAfter(this.knex, this.streamKey, member.cursor, BATCH);
        if (events.length === 0) break;
        this.hand(member, events);
        if (!this.members.has(member)) return leave;
      }
      const held = member.held ?? [];
      member.held = undefined;
      this.hand(member, held);
    } catch (error) {
      leave();
      throw error;
    }
    return leave;
  }

  /** Reads what is new; concurrent wake-ups fold into one more read. */
  async pump(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.readAgain = false;
        for (;;) {
          const events = await readEventsAfter(this.knex, this.streamKey, this.cursor, BATCH);
          if (events.length === 0) break;
          this.cursor = events[events.length - 1]!.id;
          for (const member of this.members) {
            if (member.held) member.held.push(...events);
            else this.hand(member, events);
          }
        }
      } while (this.readAgain);
    } finally {
      this.reading = false;
    }
  }

  private hand(member: Member, events: JournalEvent[]): void {
    const fresh = events.filter((event) => event.id > member.cursor);
    if (fresh.length === 0) return;
    member.cursor = fresh[fresh.length - 1]!.id;
    member.subscriber.deliver(fresh);
  }
}
