import { createRequire } from 'node:module';
import type pg from 'pg';

export interface PipelinedQuery {
  name?: string;
  text: string;
  values: unknown[];
  types: pg.CustomTypesConfig;
}

/** How many pipelined connections the reads share: a slow read holds up only its own. */
const READ_CONNECTIONS = 2;

interface Slot {
  client: pg.Client;
  connected: Promise<unknown>;
  inFlight: number;
  corked: boolean;
}

/**
 * Reads over a few Postgres connections in pipeline mode: a query is written without waiting for
 * the answer of the one before, and the queries issued in one turn of the event loop leave in one
 * write. On a small machine most of a point read's cost was the round trip itself (a socket write
 * that wakes a server process per query, a pool checkout, a read per answer); here concurrent
 * reads share the writes, the wake-ups and the reads.
 *
 * Each query carries its own Sync, so an error fails only that query. A connection that breaks
 * fails the queries it carries and is replaced on the next read.
 */
export class PipelinedPostgres {
  private readonly slots: (Slot | undefined)[] = new Array(READ_CONNECTIONS).fill(undefined);
  private closed = false;

  constructor(private readonly url: string) {}

  async query(query: PipelinedQuery): Promise<{ rows: unknown[] }> {
    const slot = this.leastBusySlot();
    slot.inFlight++;
    try {
      await slot.connected;
      this.corkUntilTheTurnEnds(slot);
      return await slot.client.query(query);
    } finally {
      slot.inFlight--;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = this.slots.filter((slot): slot is Slot => slot !== undefined);
    this.slots.fill(undefined);
    await Promise.all(open.map((slot) => slot.client.end().catch(() => {})));
  }

  private leastBusySlot(): Slot {
    if (this.closed) throw new Error('The database connection is closed.');
    let best = 0;
    for (let index = 0; index < this.slots.length; index++) {
      const slot = this.slots[index];
      if (!slot) return this.open(index);
      if (slot.inFlight < this.slots[best]!.inFlight) best = index;
    }
    return this.slots[best]!;
  }

  private open(index: number): Slot {
    const { Client } = createRequire(import.meta.url)('pg') as typeof pg;
    const client = new Client({
      connectionString: this.url,
      pipeline: true,
      application_name: 'cairn-reads',
    });
    const slot: Slot = { client, connected: client.connect(), inFlight: 0, corked: false };
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
