import type { Knex } from 'knex';
import { toReader, type ReadSource } from '../sql-reader.js';
import { parseJson, toIso, toNumber } from '../rows.js';
import { appendEvent, DASHBOARD_STREAM, type EventRow } from './events.js';

/**
 * The audit trail of one workflow run: transitions, node results and who did what. Its events are
 * journal rows (db/repositories/events.ts) carrying the run's id, so the run's history, its
 * conversation's stream and the dashboard read one row per event.
 */
export interface RunEvent {
  id: number;
  runId: string;
  type: string;
  nodeId: string | null;
  actor: string | null;
  payload: Record<string, unknown>;
  createdAt: string;
}

export interface NewRunEvent {
  runId: string;
  /** The run's conversation, whose stream shows the event; without one, only the dashboard does. */
  conversationId?: string | null;
  type: string;
  nodeId?: string | null;
  actor?: string | null;
  payload?: Record<string, unknown>;
}

function fromRow(row: EventRow & { run_id: string }): RunEvent {
  return {
    id: toNumber(row.id),
    runId: row.run_id,
    type: row.type,
    nodeId: row.node_id,
    actor: row.actor,
    payload: parseJson(row.payload, {}),
    createdAt: toIso(row.created_at),
  };
}

/** Appends a run event: one journal row, on its conversation's stream and on the dashboard. */
export async function appendRunEvent(knex: Knex, input: NewRunEvent): Promise<RunEvent> {
  const payload = input.payload ?? {};
  const stored = await appendEvent(knex, {
    streamKey: input.conversationId ?? DASHBOARD_STREAM,
    onDashboard: true,
    run: { runId: input.runId, nodeId: input.nodeId, actor: input.actor },
    type: input.type,
    payload,
  });
  return {
    id: stored.id,
    runId: input.runId,
    type: input.type,
    nodeId: input.nodeId ?? null,
    actor: input.actor ?? null,
    payload,
    createdAt: stored.createdAt,
  };
}

/** The latest event of one node of a run, if it has any. */
export async function latestNodeEvent(
  source: ReadSource,
  runId: string,
  nodeId: string,
): Promise<RunEvent | undefined> {
  const row = await toReader(source).first<EventRow & { run_id: string }>(
    'select * from events where run_id = ? and node_id = ? order by id desc limit 1',
    [runId, nodeId],
  );
  return row ? fromRow(row) : undefined;
}

/** A run's events, oldest first. */
export async function listRunEvents(source: ReadSource, runId: string): Promise<RunEvent[]> {
  const rows = await toReader(source).all<EventRow & { run_id: string }>(
    'select * from events where run_id = ? order by id',
    [runId],
  );
  return rows.map(fromRow);
}

/** Deletes a run's events; returns how many. */
export async function deleteRunEvents(knex: Knex, runId: string): Promise<number> {
  return knex('events').where('run_id', runId).delete();
}

/** A run's events after a journal id, oldest first, at most `limit`: for readers that follow a run. */
export async function listRunEventsAfter(
  source: ReadSource,
  runId: string,
  afterId: number,
  limit: number,
): Promise<RunEvent[]> {
  const rows = await toReader(source).all<EventRow & { run_id: string }>(
    'select * from events where run_id = ? and id > ? order by id limit ?',
    [runId, afterId, limit],
  );
  return rows.map(fromRow);
}
