import type { Knex } from 'knex';
import * as coreTables from './migrations/0001-core-tables.js';

interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// Listed in code rather than read from a folder: the order is explicit, and the same list works
// from TypeScript sources and from a compiled build.
const MIGRATIONS: readonly Migration[] = [{ name: '0001-core-tables', ...coreTables }];

const source: Knex.MigrationSource<Migration> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration,
};

const settings = { migrationSource: source, tableName: 'cairn_migrations' };

/** Applies every pending migration; returns the names applied. */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest(settings)) as [number, string[]];
  return applied;
}

export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const [, pending] = (await knex.migrate.list(settings)) as [unknown, Migration[]];
  return pending.map((migration) => migration.name);
}

export async function rollbackAll(knex: Knex): Promise<void> {
  await knex.migrate.rollback(settings, true);
}
