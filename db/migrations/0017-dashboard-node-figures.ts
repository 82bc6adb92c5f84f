import type { Knex } from 'knex';

// The dashboard shows, for each run of its page, how many of its definition's nodes have ended
// and how many there are. Both were computed per row on every request: the nodes in all by
// parsing the stored definition (a few KB of JSON for a real workflow), the nodes ended by a
// count(distinct) over the run's events that read each event row and sorted in a temporary
// B-tree. Here the definition's node count becomes a column, kept by triggers as the definition
// is written (every writer, as with migration 0004's counts), and the ended-node events get a
// partial index that answers the count from the index alone (its type column too: without it
// SQLite reads each event's row to check the type the index's condition already implies).

const NODE_COUNT = 'node_count';
const ENDED_NODES_INDEX = 'events_ended_nodes_index';

// The event types that end a node, as the dashboard's query names them (db/repositories/
// run-dashboard.ts): a partial index serves a query only when its condition is the same.
const ENDED_NODE_TYPES_SQL = "'node_completed', 'node_failed', 'node_skipped'";

// A nodes field that is not a list counts none; so does a definition that is not JSON (Cairn
// writes it with JSON.stringify, so that only happens by hand), which must never fail the write.
const SQLITE_NODE_COUNT = (definition: string) =>
  `(case when json_valid(${definition}) then coalesce(json_array_length(${definition}, '$.nodes'), 0) else 0 end)`;

const SQLITE_TRIGGERS = [
  `create trigger workflow_runs_node_count_insert after insert on workflow_runs begin
     update workflow_runs set ${NODE_COUNT} = ${SQLITE_NODE_COUNT('new.definition')} where id = new.id;
   end`,
  `create trigger workflow_runs_node_count_update after update of definition on workflow_runs begin
     update workflow_runs set ${NODE_COUNT} = ${SQLITE_NODE_COUNT('new.definition')} where id = new.id;
   end`,
];

const POSTGRES_FUNCTION = `
create function cairn_run_node_count(definition text) returns integer language plpgsql immutable as $$
declare
  nodes json;
begin
  nodes := definition::json -> 'nodes';
  if json_typeof(nodes) = 'array' then return json_array_length(nodes); end if;
  return 0;
exception when others then
  return 0;
end $$`;

const POSTGRES_TRIGGER_FUNCTION = `
create function cairn_set_run_node_count() returns trigger language plpgsql as $$
begin
  new.${NODE_COUNT} := cairn_run_node_count(new.definition);
  return new;
end $$`;

const POSTGRES_TRIGGER = `create trigger workflow_runs_node_count before insert or update of definition
  on workflow_runs for each row execute function cairn_set_run_node_count()`;

const postgres = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    t.integer(NODE_COUNT).notNullable().defaultTo(0);
  });
  if (postgres(knex)) {
    for (const statement of [POSTGRES_FUNCTION, POSTGRES_TRIGGER_FUNCTION, POSTGRES_TRIGGER])
      await knex.raw(statement);
    await knex.raw(`update workflow_runs set ${NODE_COUNT} = cairn_run_node_count(definition)`);
  } else {
    for (const statement of SQLITE_TRIGGERS) await knex.raw(statement);
    await knex.raw(`update workflow_runs set ${NODE_COUNT} = ${SQLITE_NODE_COUNT('definition')}`);
  }
  await knex.raw(
    `create index ${ENDED_NODES_INDEX} on events (run_id, node_id, type) where type in (${ENDED_NODE_TYPES_SQL})`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index if exists ${ENDED_NODES_INDEX}`);
  if (postgres(knex)) {
    await knex.raw('drop trigger if exists workflow_runs_node_count on workflow_runs');
    await knex.raw('drop function if exists cairn_set_run_node_count()');
    await knex.raw('drop function if exists cairn_run_node_count(text)');
  } else {
    for (const name of ['insert', 'update'])
      await knex.raw(`drop trigger if exists workflow_runs_node_count_${name}`);
  }
  // Dropped in place: knex's SQLite dropColumn rebuilds the table, which would lose the triggers
  // of migrations 0004 and 0016.
  await knex.raw(`alter table workflow_runs drop column ${NODE_COUNT}`);
}
