import type { Knex } from 'knex';

// The values a run was started with for its workflow's declared `inputs` (JSON, null when none).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    t.text('inputs');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    t.dropColumn('inputs');
  });
}
