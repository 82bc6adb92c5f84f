import { openDatabase, type Database } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import type { CairnContext } from './context.js';

/** Opens the configured database and applies pending migrations (both are safe to repeat). */
export async function openMigratedDatabase(context: CairnContext): Promise<Database> {
  const db = openDatabase({
    databaseUrl: context.environment.server.databaseUrl,
    sqliteFile: context.layout.databaseFile,
    // A server process: its event loop should not copy the SQLite log back (db/wal-checkpoints.ts).
    backgroundCheckpoints: {
      onFallback: (reason) =>
        context.logger.warn(
          { event: 'db.checkpoints_fallback', reason },
          'SQLite checkpoints are back in the writer',
        ),
    },
  });
  const applied = await migrateToLatest(db.knex);
  context.logger.info(
    { event: 'db.ready', dialect: db.dialect, location: db.location, migrationsApplied: applied },
    `database ready (${db.dialect})`,
  );
  return db;
}
