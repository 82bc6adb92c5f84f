import type { Knex } from 'knex';

// The answers of POSTs sent with an Idempotency-Key, so a client that retries after a timeout
// gets the first answer instead of a second conversation, turn, codebase or run.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    // The operation and the caller the key belongs to (two users may pick the same key).
    t.string('scope', 320).notNullable();
    t.string('key', 255).notNullable();
    // SHA-256 of the method, path and body: the same key with another request is refused.
    t.string('fingerprint', 64).notNullable();
    // Who is handling it: a random token per attempt, so a takeover can be compared and set.
    t.string('owner', 36).notNullable();
    t.string('state', 16).notNullable(); // in_progress | done
    // An attempt whose process died frees the key at this time.
    t.timestamp('locked_until', { useTz: true }).notNullable();
    t.integer('status');
    t.text('headers');
    t.text('body');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['scope', 'key']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
