import type { Knex } from 'knex';

// On Postgres every change of `codebases` is announced on the cairn_codebases channel, whichever
// process or statement made it, so each API process can keep the codebase at a checkout path in
// memory and drop it the moment it changes (db/codebase-path-cache.ts). One notice per statement:
// a listener only needs to know that something changed. SQLite has no notices: nothing to add.

const postgres = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  if (!postgres(knex)) return;
  await knex.raw(`create function cairn_notify_codebases_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('cairn_codebases', '');
  return null;
end $$`);
  await knex.raw(`create trigger codebases_changed after insert or update or delete or truncate on codebases
   for each statement execute function cairn_notify_codebases_changed()`);
}

export async function down(knex: Knex): Promise<void> {
  if (!postgres(knex)) return;
  await knex.raw('drop trigger if exists codebases_changed on codebases');
  await knex.raw('drop function if exists cairn_notify_codebases_changed()');
}
