import type { Knex } from 'knex';

// The code-host webhooks' outbox. A webhook is recorded here before it is answered (202), and its
// work starts after, as a workflow named after the record; `started_at` stays empty until the
// workflow is known to be started, so a process that dies in between leaves a row the sweep
// starts. The key is the request's (thread, comment, update time): a redelivery, even under a new
// delivery id, finds its row; an edited comment is a new one.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('code_host_deliveries', (t) => {
    t.string('platform', 16).notNullable();
    t.string('request_key', 512).notNullable();
    t.string('delivery_id', 255).notNullable();
    // The platform-neutral request (domain/codehost/code-host-request.ts) as JSON.
    t.text('request').notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true });
    t.primary(['platform', 'request_key']);
    t.index(['started_at', 'received_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('code_host_deliveries');
}
