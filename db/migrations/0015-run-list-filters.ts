import type { Knex } from 'knex';

// The dashboard filters runs by workflow and by codebase, newest first. Without these indexes a
// rare workflow or a quiet codebase would make the newest-first read walk every run to fill a
// page, and the counts per status scan the whole table; with them both read only the matches.

const INDEXES = [
  { columns: ['workflow_name', 'created_at', 'id'], name: 'workflow_runs_workflow_created_index' },
  { columns: ['codebase_id', 'created_at', 'id'], name: 'workflow_runs_codebase_created_index' },
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    for (const index of INDEXES) t.index(index.columns, index.name);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    for (const index of INDEXES) t.dropIndex(index.columns, index.name);
  });
}
