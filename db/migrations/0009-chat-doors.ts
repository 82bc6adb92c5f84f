import type { Knex } from 'knex';

// The chat and code-host doors. Platforms deliver again after a restart or a missed
// acknowledgement (Telegram's unconfirmed updates, Slack's retries, Discord's resume), so each
// delivery is recorded by the platform's own id before it is acted on, and acted on once. A chat
// talks to one conversation at a time; /new and /codebase move it to another.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('inbound_deliveries', (t) => {
    t.string('source', 64).notNullable(); // telegram:<bot id>, slack:<team>, github, ...
    t.string('delivery_id', 255).notNullable();
    // What the delivery became: a stored message (its id), a command, a refusal, nothing.
    t.string('outcome', 16).notNullable();
    t.string('conversation_id', 36);
    t.bigInteger('message_id');
    // A command's answer (the reply workflow's input), so a redelivery can still start it.
    t.text('reply');
    t.timestamp('received_at', { useTz: true }).notNullable();
    t.primary(['source', 'delivery_id']);
    t.index(['received_at']);
  });
  await knex.schema.createTable('chat_bindings', (t) => {
    t.string('platform', 32).notNullable();
    t.string('chat_key', 255).notNullable();
    t.string('conversation_id', 36)
      .notNullable()
      .references('id')
      .inTable('conversations')
      .onDelete('CASCADE');
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['platform', 'chat_key']);
  });
  // Messages a reply posted, by the reply's id and what they show ("part:2", "gate:<event>"):
  // a retried delivery edits these instead of posting again (AMENDMENTS A.3).
  await knex.schema.createTable('chat_posts', (t) => {
    t.string('reply_id', 320).notNullable();
    t.string('slot', 64).notNullable();
    t.string('message_id', 64).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['reply_id', 'slot']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chat_posts');
  await knex.schema.dropTable('chat_bindings');
  await knex.schema.dropTable('inbound_deliveries');
}
