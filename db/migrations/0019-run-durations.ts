import type { Knex } from 'knex';
import { rebuildRunTable } from './0018-run-row-order.js';

// The dashboard shows each run's duration: from its start to its end, or to now while it runs.
// Computed per row on every request, that was two parses of ISO text per row on SQLite, a fifth
// of the dashboard's statement (30 of 131 us on the reads bench's seed). An ended run's duration
// never changes, so it becomes a column, `duration_ms`, that triggers write whenever a run's start
// or end is written (every writer, as with migration 0017's node count); the dashboard computes
// only the running ones'. The expressions are the dashboard's own, so the figures are the same.

const DURATION = 'duration_ms';

/** Milliseconds between two ISO times, as the dashboard's SQLite expression wrote them. */
const SQLITE_DURATION = (started: string, completed: string) =>
  `(case when ${started} is null or ${completed} is null then null else cast(round((unixepoch(${completed}, 'subsec') - unixepoch(${started}, 'subsec')) * 1000) as integer) end)`;

const SQLITE_TRIGGERS = [
  `create trigger workflow_runs_duration_insert after insert on workflow_runs
   when new.started_at is not null and new.completed_at is not null begin
     update workflow_runs set ${DURATION} = ${SQLITE_DURATION('new.started_at', 'new.completed_at')} where id = new.id;
   end`,
  `create trigger workflow_runs_duration_update after update of started_at, completed_at on workflow_runs begin
     update workflow_runs set ${DURATION} = ${SQLITE_DURATION('new.started_at', 'new.completed_at')} where id = new.id;
   end`,
];

const POSTGRES_TRIGGER_FUNCTION = `
create function cairn_set_run_duration() returns trigger language plpgsql as $$
begin
  new.${DURATION} := case when new.started_at is null or new.completed_at is null then null
    else round(extract(epoch from (new.completed_at - new.started_at)) * 1000)::bigint end;
  return new;
end $$`;

const POSTGRES_TRIGGER = `create trigger workflow_runs_duration before insert or update of started_at, completed_at
  on workflow_runs for each row execute function cairn_set_run_duration()`;

const postgres = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    t.bigInteger(DURATION);
  });
  if (postgres(knex)) {
    await knex.raw(POSTGRES_TRIGGER_FUNCTION);
    await knex.raw(POSTGRES_TRIGGER);
    // Setting a column the trigger watches runs it for every ended run.
    await knex.raw('update workflow_runs set completed_at = completed_at where completed_at is not null');
  } else {
    await knex.raw(
      `update workflow_runs set ${DURATION} = ${SQLITE_DURATION('started_at', 'completed_at')} where completed_at is not null`,
    );
    // The new column went after the definition: back before it (migration 0018 says why), with
    // the triggers above, which the rebuild keeps.
    for (const statement of SQLITE_TRIGGERS) await knex.raw(statement);
    await rebuildRunTable(knex);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (postgres(knex)) {
    await knex.raw('drop trigger if exists workflow_runs_duration on workflow_runs');
    await knex.raw('drop function if exists cairn_set_run_duration()');
  } else {
    for (const name of ['insert', 'update'])
      await knex.raw(`drop trigger if exists workflow_runs_duration_${name}`);
  }
  // Dropped in place: knex's SQLite dropColumn rebuilds the table, which would lose the triggers
  // of migrations 0004, 0016 and 0017.
  await knex.raw(`alter table workflow_runs drop column ${DURATION}`);
}
