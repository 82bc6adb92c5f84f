import { openDatabase } from '../../db/connection.js';
import { migrateToLatest, pendingMigrations, unlockMigrations } from '../../db/migrate.js';
import { createContext } from '../boot/context.js';

/** `cairn migrate`: applies pending migrations (lists them with --status, frees a stale lock with --unlock). */
export async function runMigrate(options: { status?: boolean; unlock?: boolean }): Promise<number> {
  const context = createContext();
  const db = openDatabase({
    databaseUrl: context.environment.server.databaseUrl,
    sqliteFile: context.layout.databaseFile,
  });
  try {
    if (options.unlock) {
      await unlockMigrations(db.knex);
      console.log('migration lock released');
      return 0;
    }
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
