import type { Knex } from 'knex';

// When a codebase's deletion began: the first DELETE claims it, a second at the same time finds
// it claimed (404). A deletion whose process died is claimable again after a while.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('codebases', (t) => {
    t.timestamp('deleting_since', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('codebases', (t) => {
    t.dropColumn('deleting_since');
  });
}
