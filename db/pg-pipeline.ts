import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';

let loaded: typeof pg | undefined;
/** The driver, loaded on first use: on SQLite nothing loads pg. */
function driver(): typeof pg {
  return (loaded ??= createRequire(import.meta.url)('pg') as typeof pg);
}

export interface PipelinedQuery {
  name?: string;
  text: string;
  values: unknown[];
}

/** At most this many read connections: a second one opens only while the first is held up. */
const MAX_READ_CONNECTIONS = 4;
/** A connection whose oldest read has waited this long is passed over by new reads. */
const HELD_UP_MS = 20;

interface Slot {
  client: pg.Client;
  connected: Promise<unknown>;
  /** When each read in flight was written, oldest first (a pipeline answers in order). */
  written: Set<{ at: number }>;
  corked: boolean;
}

/**
 * Reads over one Postgres connection in pipeline mode: a query is written without waiting for the
 * answer of the one before, and the queries issued in one turn of the event loop leave in one
 * write. On a small machine most of a point read's cost was the round trip itself (a pool
 * checkout, a socket write that wakes one of many server processes, a read per answer); here
 * concurrent reads share the writes, the wake-ups and the reads, and the server works on one read
 * at a time, leaving the other cores to the HTTP side (two connections measured a worse tail than
 * one on two cores).
 *
 * A pipeline answers in order, so a slow read would hold up every read behind it: once the
 * oldest read in flight on a connection has waited HELD_UP_MS, new reads go to the next
 * connection (opened then), up to MAX_READ_CONNECTIONS.
 *
 * Each query carries its own Sync, so an error fails only that query. A connection that breaks
 * fails the queries it carries and is replaced on the next read.
 */
export class PipelinedPostgres {
  private readonly slots: (Slot | undefined)[] = new Array(MAX_READ_CONNECTIONS).fill(undefined);
  private closed = false;

  /** `types`: the parsers of every read's values, set on each connection. */
  constructor(
    private readonly url: string,
    private readonly types: pg.CustomTypesConfig,
  ) {}

  async query(query: PipelinedQuery): Promise<{ rows: unknown[] }> {
    const slot = this.slotNotHeldUp();
    await slot.connected;
    const written = { at: performance.now() };
    slot.written.add(written);
    try {
      this.corkUntilTheTurnEnds(slot);
      return await submit(slot.client, query);
    } finally {
      slot.written.delete(written);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = this.slots.filter((slot): slot is Slot => slot !== undefined);
    this.slots.fill(undefined);
    await Promise.all(open.map((slot) => slot.client.end().catch(() => {})));
  }

  /** The first connection whose oldest read is recent; when every one is held up, the least busy. */
  private slotNotHeldUp(): Slot {
    if (this.closed) throw new Error('The database connection is closed.');
    const now = performance.now();
    let leastBusy: Slot | undefined;
    for (let index = 0; index < this.slots.length; index++) {
      const slot = this.slots[index];
      if (!slot) return this.open(index);
      const oldest = slot.written.values().next().value;
      if (!oldest || now - oldest.at < HELD_UP_MS) return slot;
      if (!leastBusy || slot.written.size < leastBusy.written.size) leastBusy = slot;
    }
    return leastBusy!;
  }

  private open(index: number): Slot {
    const client = new (driver().Client)({
      connectionString: this.url,
      pipeline: true,
      application_name: 'cairn-reads',
      types: this.types,
    });
    const slot: Slot = { client, connected: client.connect(), written: new Set(), corked: false };
    // A broken connection leaves its slot; the queries it carried fail with the error.
    const forget = () => {
      if (this.slots[index] === slot) this.slots[index] = undefined;
    };
    client.on('error', forget);
    client.on('end', forget);
    slot.connected.catch(forget);
    this.slots[index] = slot;
    return slot;
  }

  /** The queries written until the event loop's current turn ends go out in one socket write. */
  private corkUntilTheTurnEnds(slot: Slot): void {
    if (slot.corked) return;
    // pg keeps its socket on `connection.stream`; it corks it itself around each query's messages.
    const stream = (
      slot.client as unknown as {
        connection: { stream: NodeJS.WritableStream & { cork(): void; uncork(): void } };
      }
    ).connection.stream;
    slot.corked = true;
    stream.cork();
    setImmediate(() => {
      slot.corked = false;
      stream.uncork();
    });
  }
}

/**
 * Sends a read as a Query made from its text and values. Handed a config object instead, pg
 * copies it property by property (descriptors and all) into a slow-mode object on every query,
 * which cost more than the rest of the driver's work for a point read.
 */
function submit(client: pg.Client, read: PipelinedQuery): Promise<{ rows: unknown[] }> {
  return new Promise((resolve, reject) => {
    const query = new (driver().Query)(read.text, read.values, (error, result) =>
      error ? reject(error) : resolve(result),
    );
    // Read when the query is written: a named one is parsed once per connection, then bound.
    if (read.name) (query as unknown as { name: string }).name = read.name;
    client.query(query);
  });
}
