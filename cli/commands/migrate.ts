import { openDatabase } from '../../db/connection.js';
import { migrateToLatest, pendingMigrations } from '../../db/migrate.js';
import { createContext } from '../boot/context.js';

/** `cairn migrate`: applies pending migrations (or lists them with --status). */
export async function runMigrate(options: { status?: boolean }): Promise<number> {
  const context = createContext();
  const db = openDatabase({
    databaseUrl: context.environment.server.databaseUrl,
    sqliteFile: context.layout.databaseFile,
  });
  try {
    if (options.status) {
      const pending = await pendingMigrations(db.knex);
      console.log(
        pending.length ? `pending: ${pending.join(', ')}` : `up to date (${db.dialect} ${db.location})`,
      );
      return 0;
    }
    const applied = await migrateToLatest(db.knex);
    console.log(
      applied.length ? `applied: ${applied.join(', ')}` : `already up to date (${db.dialect} ${db.location})`,
    );
    return 0;
  } finally {
    await db.close();
  }
}
