import type { Knex } from 'knex';

// Runs per status, kept by triggers on workflow_runs, so the dashboard's counts are one small
// read instead of a scan of every run (3 ms at 100k runs, on each dashboard request). Triggers
// rather than application code: every writer (API, workers, an older process mid-upgrade, a
// manual fix in SQL) keeps the figures exact, in the same transaction as the change.

const TABLE = 'run_status_counts';

// SQLite runs one writer at a time, so the order of the two updates does not matter there.
const SQLITE_TRIGGERS = [
  `create trigger run_status_counts_insert after insert on workflow_runs begin
     insert into ${TABLE} (status, count) values (new.status, 1)
       on conflict (status) do update set count = count + 1;
   end`,
  `create trigger run_status_counts_delete after delete on workflow_runs begin
     update ${TABLE} set count = count - 1 where status = old.status;
   end`,
  `create trigger run_status_counts_update after update of status on workflow_runs
   when old.status <> new.status begin
     update ${TABLE} set count = count - 1 where status = old.status;
     insert into ${TABLE} (status, count) values (new.status, 1)
       on conflict (status) do update set count = count + 1;
   end`,
];

// On Postgres two transactions moving runs between the same two statuses in opposite directions
// would lock the two count rows in opposite orders; taking them in name order never deadlocks.
const POSTGRES_FUNCTION = `
create function cairn_count_run_status() returns trigger language plpgsql as $$
declare
  statuses text[];
  deltas integer[];
begin
  if tg_op = 'INSERT' then
    statuses := array[new.status]; deltas := array[1];
  elsif tg_op = 'DELETE' then
    statuses := array[old.status]; deltas := array[-1];
  elsif old.status < new.status then
    statuses := array[old.status, new.status]; deltas := array[-1, 1];
  else
    statuses := array[new.status, old.status]; deltas := array[1, -1];
  end if;
  for i in 1 .. array_length(statuses, 1) loop
    insert into ${TABLE} (status, count) values (statuses[i], deltas[i])
      on conflict (status) do update set count = ${TABLE}.count + excluded.count;
  end loop;
  return null;
end $$`;

const POSTGRES_TRIGGERS = [
  `create trigger run_status_counts_insert_delete after insert or delete on workflow_runs
   for each row execute function cairn_count_run_status()`,
  `create trigger run_status_counts_update after update of status on workflow_runs
   for each row when (old.status is distinct from new.status) execute function cairn_count_run_status()`,
];

const postgres = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.string('status', 32).primary();
    t.integer('count').notNullable().defaultTo(0);
  });
  const statements = postgres(knex) ? [POSTGRES_FUNCTION, ...POSTGRES_TRIGGERS] : SQLITE_TRIGGERS;
  for (const statement of statements) await knex.raw(statement);
  // The runs already there, counted once; from here on the triggers keep the figures.
  await knex.raw(
    `insert into ${TABLE} (status, count) select status, count(*) from workflow_runs group by status`,
  );
}

export async function down(knex: Knex): Promise<void> {
  if (postgres(knex)) {
    await knex.raw('drop trigger if exists run_status_counts_insert_delete on workflow_runs');
    await knex.raw('drop trigger if exists run_status_counts_update on workflow_runs');
    await knex.raw('drop function if exists cairn_count_run_status()');
  } else {
    for (const name of ['insert', 'delete', 'update'])
      await knex.raw(`drop trigger if exists run_status_counts_${name}`);
  }
  await knex.schema.dropTable(TABLE);
}
