import type { Knex } from 'knex';

// One journal row per event. Before, a run event was written three times: in
// `workflow_run_events` (the run's history) and in `events` twice (its conversation's stream and
// `__dashboard__`). Now the `events` row is the only copy, and what an event belongs to is
// indexed columns on it rather than more rows:
// - `stream_key`: the one stream it was appended to (a conversation, `__system__`, or
//   `__dashboard__` for a run event without a conversation), indexed (stream_key, id) as before;
//   null for history the run kept from before this migration, which no stream shows;
// - `on_dashboard`: `__dashboard__` shows it too (every run event), indexed (on_dashboard, id);
// - `run_id`, `node_id`, `actor`: a run event; the run's history reads it by (run_id, id).
// An event is on at most one conversation's stream and maybe the dashboard, so two columns say
// it all: a stream read stays one index range scan, with no join and one insert per event.
// `run_id` has no foreign key: a run's events are deleted with it (deleteRun) and by the
// retention purge in batches, never by a cascade of unbounded size.

const DASHBOARD_STREAM = '__dashboard__';
const BATCH = 1_000;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.setNullable('stream_key');
    t.boolean('on_dashboard').notNullable().defaultTo(false);
    t.string('run_id', 36);
    t.string('node_id', 255);
    t.string('actor', 255);
  });
  // Each old row stays an event of its one stream; the dashboard's copies are the dashboard's.
  await knex('events').where('stream_key', DASHBOARD_STREAM).update({ on_dashboard: true });
  // The runs' histories become run-only events (on no stream, so streams gain no duplicates),
  // appended in their order after every journal id.
  await knex.raw(
    `insert into events (run_id, node_id, actor, type, payload, created_at)
     select run_id, node_id, actor, type, coalesce(payload, '{}'), created_at
     from workflow_run_events order by id`,
  );
  await knex.schema.dropTable('workflow_run_events');
  await knex.schema.alterTable('events', (t) => {
    t.index(['on_dashboard', 'id']);
    t.index(['run_id', 'id']);
  });
  // The conversation list pages by (last_activity_at, id), most recent first.
  await knex.schema.alterTable('conversations', (t) => {
    t.index(['last_activity_at', 'id']);
  });
}

interface RunEventRow {
  id: number | string;
  stream_key: string;
  on_dashboard: unknown;
  run_id: string;
  node_id: string | null;
  actor: string | null;
  type: string;
  payload: string;
  created_at: unknown;
}

/** A run event as the streams showed it before: the run's fields first, then its payload. */
function streamPayload(row: RunEventRow): string {
  return JSON.stringify({
    runId: row.run_id,
    ...(row.node_id ? { nodeId: row.node_id } : {}),
    ...(row.actor ? { actor: row.actor } : {}),
    ...(JSON.parse(row.payload) as Record<string, unknown>),
  });
}

/**
 * Back to three copies: the history table again, each run event's stream row with the stream's
 * payload, and a dashboard copy of those on a conversation's stream (appended after every id,
 * in their order, as the old code would have had them in its own).
 */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (t) => {
    t.dropIndex(['last_activity_at', 'id']);
  });
  await knex.schema.createTable('workflow_run_events', (t) => {
    t.bigIncrements('id').primary();
    t.string('run_id', 36).notNullable().references('id').inTable('workflow_runs').onDelete('CASCADE');
    t.string('type', 64).notNullable();
    t.string('node_id', 255);
    t.string('actor', 255);
    t.text('payload');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['run_id', 'id']);
  });
  await knex.raw(
    `insert into workflow_run_events (run_id, type, node_id, actor, payload, created_at)
     select run_id, type, node_id, actor, payload, created_at from events
     where run_id in (select id from workflow_runs) order by id`,
  );
  for (let after = 0; ;) {
    const rows = (await knex('events')
      .whereNotNull('run_id')
      .whereNotNull('stream_key')
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)) as RunEventRow[];
    if (rows.length === 0) break;
    const copies = [];
    for (const row of rows) {
      const payload = streamPayload(row);
      await knex('events').where('id', row.id).update({ payload });
      if (row.stream_key !== DASHBOARD_STREAM && (row.on_dashboard === true || row.on_dashboard === 1)) {
        copies.push({ stream_key: DASHBOARD_STREAM, type: row.type, payload, created_at: row.created_at });
      }
    }
    if (copies.length > 0) await knex('events').insert(copies);
    after = Number(rows[rows.length - 1]!.id);
  }
  await knex('events').whereNull('stream_key').delete();
  await knex.schema.alterTable('events', (t) => {
    t.dropIndex(['on_dashboard', 'id']);
    t.dropIndex(['run_id', 'id']);
  });
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('on_dashboard');
    t.dropColumn('run_id');
    t.dropColumn('node_id');
    t.dropColumn('actor');
    t.dropNullable('stream_key');
  });
}
