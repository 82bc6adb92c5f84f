import type { Knex } from 'knex';
import { nowIso, toIso, toNumber, parseJson } from '../rows.js';
import { announceAppended, JOURNAL_CHANNEL } from '../journal-signals.js';

/** The stream every workflow event is also written to. */
export const DASHBOARD_STREAM = '__dashboard__';

/** The stream of the service's own housekeeping (cleanup passes, run reconciliation). */
export const SYSTEM_STREAM = '__system__';

export interface JournalEvent {
  id: number;
  streamKey: string;
  type: string;
  payload: Record<string, unknown>;
  createdAt: string;
}

export interface NewJournalEvent {
  streamKey: string;
  type: string;
  payload: Record<string, unknown>;
}

interface EventRow {
  id: number | string;
  stream_key: string;
  type: string;
  payload: string;
  created_at: unknown;
}

function fromRow(row: EventRow): JournalEvent {
  return {
    id: toNumber(row.id),
    streamKey: row.stream_key,
    type: row.type,
    payload: parseJson(row.payload, {}),
    createdAt: toIso(row.created_at),
  };
}

// Readers tail the journal with `id > last seen`. In Postgres a sequence hands out ids at insert,
// not at commit, so a slow transaction could commit id 7 after a reader already moved past 8.
// Holding this lock until commit makes ids commit in order. (SQLite has one writer anyway.)
const JOURNAL_LOCK = 0x6361_6972; // "cair"

function isPostgres(knex: Knex): boolean {
  return knex.client.config.client === 'pg';
}

/** Appends events in one insert, keeping their order; returns them with their journal ids. */
export async function appendEvents(knex: Knex, events: NewJournalEvent[]): Promise<JournalEvent[]> {
  if (events.length === 0) return [];
  if (isPostgres(knex) && !knex.isTransaction) {
    return knex.transaction((trx) => appendEvents(trx, events));
  }
  if (isPostgres(knex)) await knex.raw('select pg_advisory_xact_lock(?)', [JOURNAL_LOCK]);
  const createdAt = nowIso();
  const rows = await knex('events')
    .insert(
      events.map((e) => ({
        stream_key: e.streamKey,
        type: e.type,
        payload: JSON.stringify(e.payload),
        created_at: createdAt,
      })),
    )
    .returning(['id', 'stream_key', 'type', 'payload', 'created_at']);
  const stored = (rows as EventRow[]).map(fromRow).sort((a, b) => a.id - b.id);
  const keys = new Set(stored.map((event) => event.streamKey));
  // NOTIFY inside the transaction is delivered at commit, to listeners in every process.
  if (isPostgres(knex)) {
    for (const key of keys) await knex.raw('select pg_notify(?, ?)', [JOURNAL_CHANNEL, key]);
  }
  announceWhenCommitted(knex, keys);
  return stored;
}

/** Readers woken before the commit would find nothing yet, so wait for it. */
function announceWhenCommitted(knex: Knex, keys: Set<string>): void {
  if (!knex.isTransaction) {
    announceAppended(keys);
    return;
  }
  (knex as Knex.Transaction).executionPromise.then(
    () => announceAppended(keys),
    () => undefined,
  );
}

export async function appendEvent(knex: Knex, event: NewJournalEvent): Promise<JournalEvent> {
  const [stored] = await appendEvents(knex, [event]);
  return stored!;
}

/** Events of one stream after a journal id, oldest first. */
export async function readEventsAfter(
  knex: Knex,
  streamKey: string,
  afterId: number,
  limit = 500,
): Promise<JournalEvent[]> {
  const rows = await knex<EventRow>('events')
    .where('stream_key', streamKey)
    .andWhere('id', '>', afterId)
    .orderBy('id', 'asc')
    .limit(limit);
  return rows.map(fromRow);
}

export async function latestEventId(knex: Knex, streamKey?: string): Promise<number> {
  const query = knex('events').max({ max: 'id' });
  if (streamKey) query.where('stream_key', streamKey);
  const row = (await query.first()) as { max: unknown } | undefined;
  return row?.max == null ? 0 : toNumber(row.max);
}
