import type { Knex } from 'knex';

// A turn's output (assistant text, tool calls, errors) points at the user message it answers.
// When a turn is run again after a worker died, the first attempt's partial output is found
// by this column and replaced, so the answer is stored exactly once. turn_attempt names the
// attempt that owns a running turn: a stale attempt that is still alive can no longer write.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.bigInteger('reply_to_message_id');
    t.integer('turn_attempt');
    t.index(['reply_to_message_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.dropIndex(['reply_to_message_id']);
    t.dropColumn('reply_to_message_id');
    t.dropColumn('turn_attempt');
  });
}
