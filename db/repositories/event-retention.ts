import type { Knex } from 'knex';
import { UNFINISHED_RUN_STATUSES, TERMINAL_RUN_STATUSES } from '../../domain/runs/run-status.js';
import { DASHBOARD_STREAM, SYSTEM_STREAM } from './events.js';

/**
 * The journal's retention: which events a purge may delete, in statements of at most
 * PURGE_BATCH rows so that a purge of millions never holds a long lock.
 *
 * A stream is finished once nothing can append to it any more and its last event is older than
 * the cutoff:
 * - a conversation, when its last activity (and its deletion, if deleted: deleting is soft and
 *   keeps the events) is before the cutoff and none of its runs is unfinished or ended since;
 * - a run, when it ended before the cutoff and its conversation (if any) is finished too, so an
 *   active conversation never loses a run's events from its stream.
 */
export const PURGE_BATCH = 5_000;

export interface RetentionCutoffs {
  /** Conversations and runs finished before this go (ISO time). */
  streamsBefore: string;
  /** Housekeeping events older than this go (ISO time). */
  systemBefore: string;
  /** The newest journal id the purge may touch: events appended while it runs are never purged. */
  ceilingId: number;
}

/** A run that still shows: unfinished, or ended at or after the cutoff. */
function keptRun(query: Knex.QueryBuilder, cutoff: string): Knex.QueryBuilder {
  return query.where((q) =>
    q
      .whereIn('r.status', UNFINISHED_RUN_STATUSES)
      .orWhereNull('r.completed_at')
      .orWhere('r.completed_at', '>=', cutoff),
  );
}

/** Ids of conversations whose stream is finished. */
function finishedConversations(knex: Knex, cutoff: string): Knex.QueryBuilder {
  return knex('conversations as c')
    .select('c.id')
    .where('c.last_activity_at', '<', cutoff)
    .where((q) => q.whereNull('c.deleted_at').orWhere('c.deleted_at', '<', cutoff))
    .whereNotExists(
      keptRun(knex('workflow_runs as r').select(knex.raw('1')).whereRaw('r.conversation_id = c.id'), cutoff),
    );
}

/** Ids of runs whose events may go. */
function finishedRuns(knex: Knex, cutoff: string): Knex.QueryBuilder {
  return knex('workflow_runs as r')
    .select('r.id')
    .whereIn('r.status', TERMINAL_RUN_STATUSES)
    .where('r.completed_at', '<', cutoff)
    .where((q) =>
      q.whereNull('r.conversation_id').orWhereIn('r.conversation_id', finishedConversations(knex, cutoff)),
    );
}

/** The run a dashboard copy from before one row per event names (its payload's runId). */
function legacyRunIdOf(knex: Knex): Knex.Raw {
  return knex.client.config.client === 'pg'
    ? knex.raw(`(events.payload::jsonb ->> 'runId')`)
    : knex.raw(`json_extract(events.payload, '$.runId')`);
}

/** Deletes the events `select` picks (below the ceiling), a batch per statement; returns how many. */
async function deleteInBatches(
  knex: Knex,
  ceilingId: number,
  select: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<number> {
  let total = 0;
  for (;;) {
    const batch = select(knex('events').select('id').where('id', '<=', ceilingId)).limit(PURGE_BATCH);
    const deleted = await knex('events').whereIn('id', batch).delete();
    total += deleted;
    if (deleted < PURGE_BATCH) return total;
  }
}

/** Events on the streams of finished conversations. */
export function purgeConversationEvents(knex: Knex, cutoffs: RetentionCutoffs): Promise<number> {
  return deleteInBatches(knex, cutoffs.ceilingId, (query) =>
    query.whereIn('stream_key', finishedConversations(knex, cutoffs.streamsBefore)),
  );
}

/** Events of finished runs: their history, and their rows on the dashboard. */
export function purgeRunEvents(knex: Knex, cutoffs: RetentionCutoffs): Promise<number> {
  return deleteInBatches(knex, cutoffs.ceilingId, (query) =>
    query.whereIn('run_id', finishedRuns(knex, cutoffs.streamsBefore)),
  );
}

/**
 * The dashboard's own copies written before one row per event (no run_id): older than the cutoff
 * and of no run that still shows (a run deleted since counts as finished).
 */
export function purgeLegacyDashboardEvents(knex: Knex, cutoffs: RetentionCutoffs): Promise<number> {
  const cutoff = cutoffs.streamsBefore;
  return deleteInBatches(knex, cutoffs.ceilingId, (query) =>
    query
      .where('stream_key', DASHBOARD_STREAM)
      .whereNull('run_id')
      .where('created_at', '<', cutoff)
      .whereNotExists(
        knex('workflow_runs as r')
          .select(knex.raw('1'))
          .where('r.id', legacyRunIdOf(knex))
          .whereNotIn('r.id', finishedRuns(knex, cutoff)),
      ),
  );
}

/** Housekeeping events (cleanup passes, reconciliation repairs) older than their cutoff. */
export function purgeSystemEvents(knex: Knex, cutoffs: RetentionCutoffs): Promise<number> {
  return deleteInBatches(knex, cutoffs.ceilingId, (query) =>
    query.where('stream_key', SYSTEM_STREAM).where('created_at', '<', cutoffs.systemBefore),
  );
}
