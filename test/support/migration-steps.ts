import type { Knex } from 'knex';
import { MIGRATIONS, type Migration } from '../../db/migrate.js';

/**
 * Knex settings over db/migrate.ts's migrations up to `name` (with it when `through`, else
 * without), on the same bookkeeping table: `knex.migrate.latest(...)` then leaves a database as
 * that migration found it or left it, and migrateToLatest applies the rest.
 */
export function migrationsUpTo(name: string, options: { through: boolean }): Knex.MigratorConfig {
  const index = MIGRATIONS.findIndex((step) => step.name === name);
  if (index < 0) throw new Error(`no migration ${name}`);
  const steps = MIGRATIONS.slice(0, options.through ? index + 1 : index);
  return {
    tableName: 'cairn_migrations',
    migrationSource: {
      getMigrations: async () => steps,
      getMigrationName: (step: Migration) => step.name,
      getMigration: async (step: Migration) => step,
    },
  };
}
