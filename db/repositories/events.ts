import type { Knex } from 'knex';
import { nowIso, toIso, toNumber, parseJson } from '../rows.js';
import { announceAppended, JOURNAL_CHANNEL } from '../journal-signals.js';

/** The stream that shows every workflow run event. */
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

/** What makes an event a run's: the run's history shows it, and stream frames name the run. */
export interface RunFields {
  runId: string;
  nodeId?: string | null;
  actor?: string | null;
}

export interface NewJournalEvent {
  /** The stream it is appended to: a conversation, `__system__` or `__dashboard__`. */
  streamKey: string;
  type: string;
  payload: Record<string, unknown>;
  /** `__dashboard__` shows it too. */
  onDashboard?: boolean;
  run?: RunFields;
}

/**
 * One row per event (db/migrations/0003-one-row-per-event.ts): the stream it was appended to,
 * whether the dashboard shows it too, and for a run event the run's fields, with the payload the
 * run's history shows.
 */
export interface EventRow {
  id: number | string;
  stream_key: string | null;
  on_dashboard: unknown;
  run_id: string | null;
  node_id: string | null;
  actor: string | null;
  type: string;
  payload: string;
  created_at: unknown;
}

/** A run event's frame names its run (and node and actor) before the payload's own fields. */
function streamPayload(row: EventRow): Record<string, unknown> {
  const payload = parseJson<Record<string, unknown>>(row.payload, {});
  if (!row.run_id) return payload;
  return {
    runId: row.run_id,
    ...(row.node_id ? { nodeId: row.node_id } : {}),
    ...(row.actor ? { actor: row.actor } : {}),
    ...payload,
  };
}

function fromRow(row: EventRow, streamKey: string): JournalEvent {
  return {
    id: toNumber(row.id),
    streamKey,
    type: row.type,
    payload: streamPayload(row),
    createdAt: toIso(row.created_at),
  };
}

/** The rows of one stream: the dashboard is a flag on the rows, every other stream their key. */
function inStream(query: Knex.QueryBuilder, streamKey: string): Knex.QueryBuilder {
  return streamKey === DASHBOARD_STREAM
    ? query.where('on_dashboard', true)
    : query.where('stream_key', streamKey);
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
  const createdAt = nowIso();
  const newRows = events.map((e) => ({
    stream_key: e.streamKey,
    on_dashboard: e.onDashboard === true || e.streamKey === DASHBOARD_STREAM,
    run_id: e.run?.runId ?? null,
    node_id: e.run?.nodeId ?? null,
    actor: e.run?.actor ?? null,
    type: e.type,
    payload: JSON.stringify(e.payload),
    created_at: createdAt,
  }));
  const keys = new Set(newRows.flatMap(streamsOf));
  if (isPostgres(knex)) await lockJournalAndNotify(knex, keys);
  const rows = (await knex('events').insert(newRows).returning('*')) as EventRow[];
  rows.sort((a, b) => toNumber(a.id) - toNumber(b.id));
  announceWhenCommitted(knex, keys);
  return rows.map((row) => fromRow(row, row.stream_key!));
}

/**
 * Takes the journal lock and queues the NOTIFY of every stream the rows are appended to, in one
 * round trip before the insert: a NOTIFY inside a transaction is delivered at its commit (to
 * listeners in every process), and never if it rolls back, so it need not follow the insert.
 */
async function lockJournalAndNotify(trx: Knex, keys: Set<string>): Promise<void> {
  const { columns, params } = journalLockAndNotify(keys);
  await trx.raw(`select ${columns}`, params);
}

/**
 * The select list that takes the journal lock and queues the NOTIFY of each stream (Postgres),
 * with its parameters: for a statement that appends to the journal by itself.
 */
export function journalLockAndNotify(keys: Iterable<string>): {
  columns: string;
  params: (string | number)[];
} {
  const streams = [...new Set(keys)];
  return {
    columns: ['pg_advisory_xact_lock(?)', ...streams.map(() => 'pg_notify(?, ?)')].join(', '),
    params: [JOURNAL_LOCK, ...streams.flatMap((key) => [JOURNAL_CHANNEL, key])],
  };
}

/** Every stream that shows the row: readers of each are woken. */
function streamsOf(row: Pick<EventRow, 'stream_key' | 'on_dashboard'>): string[] {
  const dashboard = row.on_dashboard === true || row.on_dashboard === 1;
  return [row.stream_key!, ...(dashboard ? [DASHBOARD_STREAM] : [])];
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
  const rows = (await inStream(knex('events'), streamKey)
    .andWhere('id', '>', afterId)
    .orderBy('id', 'asc')
    .limit(limit)) as EventRow[];
  return rows.map((row) => fromRow(row, streamKey));
}

export async function latestEventId(knex: Knex, streamKey?: string): Promise<number> {
  const query = knex('events').max({ max: 'id' });
  if (streamKey) inStream(query, streamKey);
  const row = (await query.first()) as { max: unknown } | undefined;
  return row?.max == null ? 0 : toNumber(row.max);
}
