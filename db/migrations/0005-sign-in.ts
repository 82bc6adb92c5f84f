import type { Knex } from 'knex';

// Browser sessions of the optional sign-in, and recent sign-in attempts for the rate limit. Both
// live in the database so every API process (and the forward-auth service) shares them: a
// sign-out ends the session everywhere, and a second replica does not double the attempts.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sign_in_sessions', (t) => {
    // SHA-256 of the session id: a copy of the database holds no usable cookie.
    t.string('id_hash', 64).primary();
    t.string('username', 255).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });
  await knex.schema.createTable('sign_in_attempts', (t) => {
    t.bigIncrements('id').primary();
    // The client address the limit is counted by.
    t.string('client', 64).notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable();
    t.index(['client', 'attempted_at']);
    t.index(['attempted_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_in_attempts');
  await knex.schema.dropTable('sign_in_sessions');
}
