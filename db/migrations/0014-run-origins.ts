import type { Knex } from 'knex';

// Where a run came from, when not from a person: a sub-workflow node (the run and node that
// started it; a run's children are found by that link) or a workflow's schedule.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    t.string('parent_run_id', 64);
    t.string('parent_node_id', 64);
    t.string('schedule_id', 255);
    t.index(['parent_run_id'], 'workflow_runs_parent_run_id_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    t.dropIndex(['parent_run_id'], 'workflow_runs_parent_run_id_index');
    t.dropColumn('schedule_id');
    t.dropColumn('parent_node_id');
    t.dropColumn('parent_run_id');
  });
}
