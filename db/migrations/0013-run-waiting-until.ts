import type { Knex } from 'knex';

// When a run waits out an assistant's usage limit: the time it goes on by itself (null otherwise).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    t.timestamp('waiting_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workflow_runs', (t) => {
    t.dropColumn('waiting_until');
  });
}
