import type { Knex } from 'knex';

// The core tables later issues extend. Timestamps are timezone-aware in Postgres and ISO-8601
// text in SQLite; repositories always write and read ISO strings. JSON is stored as text so
// both dialects behave the same.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('codebases', (t) => {
    t.string('id', 36).primary();
    t.string('name', 255).notNullable();
    // Normalised URL or absolute path: registering the same repository twice finds this row.
    t.string('repository_key', 1024).notNullable().unique();
    t.text('url');
    t.text('local_path');
    t.text('source_path').notNullable();
    t.string('default_branch', 255);
    t.boolean('allow_env_keys').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });

  await knex.schema.createTable('conversations', (t) => {
    t.string('id', 36).primary();
    t.string('platform', 32).notNullable();
    t.string('platform_conversation_id', 255).notNullable();
    t.string('codebase_id', 36).references('id').inTable('codebases').onDelete('SET NULL');
    t.string('title', 500);
    t.text('cwd');
    t.string('isolation_environment_id', 36);
    t.timestamp('last_activity_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['platform', 'platform_conversation_id']);
    t.index(['codebase_id']);
  });

  await knex.schema.createTable('messages', (t) => {
    t.bigIncrements('id').primary();
    t.string('conversation_id', 36)
      .notNullable()
      .references('id')
      .inTable('conversations')
      .onDelete('CASCADE');
    t.string('role', 16).notNullable();
    t.text('content').notNullable();
    t.text('metadata');
    // Only user messages have a turn: queued -> running -> completed | failed.
    t.string('turn_status', 16);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['conversation_id', 'id']);
    t.index(['turn_status']);
  });

  await knex.schema.createTable('assistant_sessions', (t) => {
    t.string('id', 36).primary();
    t.string('conversation_id', 36)
      .notNullable()
      .references('id')
      .inTable('conversations')
      .onDelete('CASCADE');
    t.string('codebase_id', 36).references('id').inTable('codebases').onDelete('SET NULL');
    t.string('assistant', 16).notNullable();
    t.string('provider_session_id', 255);
    t.text('cwd');
    t.string('status', 16).notNullable();
    t.timestamp('last_activity_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('ended_at', { useTz: true });
    t.index(['conversation_id', 'status']);
    t.index(['last_activity_at']);
  });

  await knex.schema.createTable('isolation_environments', (t) => {
    t.string('id', 36).primary();
    t.string('codebase_id', 36).notNullable().references('id').inTable('codebases').onDelete('CASCADE');
    t.string('kind', 16).notNullable();
    t.string('key', 255).notNullable();
    t.string('branch', 255).notNullable();
    t.text('path').notNullable();
    t.string('base_branch', 255);
    t.string('status', 16).notNullable();
    t.timestamp('last_activity_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('destroyed_at', { useTz: true });
    t.index(['codebase_id', 'status']);
  });
  // One active environment per (codebase, kind, key); destroyed ones are history.
  await knex.raw(
    `CREATE UNIQUE INDEX isolation_environments_active_key ON isolation_environments (codebase_id, kind, key) WHERE status = 'active'`,
  );

  await knex.schema.createTable('workflow_runs', (t) => {
    t.string('id', 36).primary();
    t.string('workflow_name', 255).notNullable();
    t.string('conversation_id', 36).references('id').inTable('conversations').onDelete('SET NULL');
    t.string('codebase_id', 36).references('id').inTable('codebases').onDelete('SET NULL');
    t.string('isolation_environment_id', 36);
    t.string('worker_platform_id', 255);
    t.string('status', 16).notNullable();
    t.text('message');
    t.text('definition').notNullable();
    t.string('current_node', 255);
    t.text('error');
    t.integer('total_tokens').notNullable().defaultTo(0);
    t.decimal('total_cost_usd', 12, 6).notNullable().defaultTo(0);
    t.timestamp('started_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['status']);
    t.index(['conversation_id']);
    t.index(['worker_platform_id']);
    t.index(['created_at', 'id']);
  });

  await knex.schema.createTable('workflow_run_events', (t) => {
    t.bigIncrements('id').primary();
    t.string('run_id', 36).notNullable().references('id').inTable('workflow_runs').onDelete('CASCADE');
    t.string('type', 64).notNullable();
    t.string('node_id', 255);
    t.string('actor', 255);
    t.text('payload');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['run_id', 'id']);
  });

  // The append-only journal every SSE stream tails; id order is delivery order.
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('id').primary();
    t.string('stream_key', 255).notNullable();
    t.string('type', 64).notNullable();
    t.text('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['stream_key', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'events',
    'workflow_run_events',
    'workflow_runs',
    'isolation_environments',
    'assistant_sessions',
    'messages',
    'conversations',
    'codebases',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
