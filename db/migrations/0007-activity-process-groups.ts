import type { Knex } from 'knex';

// The process groups (bash scripts, assistants, git) each activity attempt started, recorded while
// they run. A worker killed with -9 leaves them running; the next attempt of the same activity
// kills them before it starts, so two attempts never work in one worktree at once.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('activity_process_groups', (t) => {
    t.bigIncrements('id').primary();
    // workflowId/activityId: the same for every attempt of one activity.
    t.string('activity_key', 600).notNullable();
    t.integer('attempt').notNullable();
    t.integer('pgid').notNullable();
    // The leader's start time (/proc), so a reused pid is never taken for ours.
    t.string('start_ticks', 32);
    t.string('host', 255).notNullable();
    t.integer('worker_pid').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.index(['activity_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('activity_process_groups');
}
