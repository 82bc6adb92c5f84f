import type { Knex } from 'knex';

// A worktree that holds code from outside the repository (a fork's pull request): what runs in it
// runs without the repository's secrets and without its consent to env keys.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('isolation_environments', (t) => {
    t.boolean('untrusted').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('isolation_environments', (t) => {
    t.dropColumn('untrusted');
  });
}
