import type { Knex } from 'knex';

// Runs per workflow and status, kept by triggers on workflow_runs like migration 0004's runs per
// status: each /metrics scrape reports them (`cairn_workflow_runs`), and counting them with a
// `group by` over every run took 55-84 ms at 100k runs, on the main thread with SQLite, on every
// scrape of every process. A run's workflow name never changes, so only its status moves.

const TABLE = 'run_workflow_counts';

const SQLITE_TRIGGERS = [
  `create trigger run_workflow_counts_insert after insert on workflow_runs begin
     insert into ${TABLE} (workflow_name, status, count) values (new.workflow_name, new.status, 1)
       on conflict (workflow_name, status) do update set count = count + 1;
   end`,
  `create trigger run_workflow_counts_delete after delete on workflow_runs begin
     update ${TABLE} set count = count - 1 where workflow_name = old.workflow_name and status = old.status;
   end`,
  `create trigger run_workflow_counts_update after update of status on workflow_runs
   when old.status <> new.status begin
     update ${TABLE} set count = count - 1 where workflow_name = old.workflow_name and status = old.status;
     insert into ${TABLE} (workflow_name, status, count) values (new.workflow_name, new.status, 1)
       on conflict (workflow_name, status) do update set count = count + 1;
   end`,
];

// As in 0004: the two rows a transition touches are taken in status order, so two transactions
// moving runs of one workflow in opposite directions never deadlock.
const POSTGRES_FUNCTION = `
create function cairn_count_run_workflow_status() returns trigger language plpgsql as $$
declare
  workflow text;
  statuses text[];
  deltas integer[];
begin
  if tg_op = 'INSERT' then
    workflow := new.workflow_name; statuses := array[new.status]; deltas := array[1];
  elsif tg_op = 'DELETE' then
    workflow := old.workflow_name; statuses := array[old.status]; deltas := array[-1];
  elsif old.status < new.status then
    workflow := new.workflow_name; statuses := array[old.status, new.status]; deltas := array[-1, 1];
  else
    workflow := new.workflow_name; statuses := array[new.status, old.status]; deltas := array[1, -1];
  end if;
  for i in 1 .. array_length(statuses, 1) loop
    insert into ${TABLE} (workflow_name, status, count) values (workflow, statuses[i], deltas[i])
      on conflict (workflow_name, status) do update set count = ${TABLE}.count + excluded.count;
  end loop;
  return null;
end $$`;

const POSTGRES_TRIGGERS = [
  `create trigger run_workflow_counts_insert_delete after insert or delete on workflow_runs
   for each row execute function cairn_count_run_workflow_status()`,
  `create trigger run_workflow_counts_update after update of status on workflow_runs
   for each row when (old.status is distinct from new.status) execute function cairn_count_run_workflow_status()`,
];

const postgres = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.string('workflow_name', 255).notNullable();
    t.string('status', 32).notNullable();
    t.integer('count').notNullable().defaultTo(0);
    t.primary(['workflow_name', 'status']);
  });
  const statements = postgres(knex) ? [POSTGRES_FUNCTION, ...POSTGRES_TRIGGERS] : SQLITE_TRIGGERS;
  for (const statement of statements) await knex.raw(statement);
  // The runs already there, counted once; from here on the triggers keep the figures.
  await knex.raw(
    `insert into ${TABLE} (workflow_name, status, count)` +
      ' select workflow_name, status, count(*) from workflow_runs group by workflow_name, status',
  );
}

export async function down(knex: Knex): Promise<void> {
  if (postgres(knex)) {
    await knex.raw('drop trigger if exists run_workflow_counts_insert_delete on workflow_runs');
    await knex.raw('drop trigger if exists run_workflow_counts_update on workflow_runs');
    await knex.raw('drop function if exists cairn_count_run_workflow_status()');
  } else {
    for (const name of ['insert', 'delete', 'update'])
      await knex.raw(`drop trigger if exists run_workflow_counts_${name}`);
  }
  await knex.schema.dropTable(TABLE);
}
