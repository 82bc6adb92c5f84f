import type { Knex } from 'knex';
import * as coreTables from './migrations/0001-core-tables.js';
import * as turnReplies from './migrations/0002-turn-replies.js';
import * as oneRowPerEvent from './migrations/0003-one-row-per-event.js';
import * as runStatusCounts from './migrations/0004-run-status-counts.js';
import * as signIn from './migrations/0005-sign-in.js';
import * as idempotencyKeys from './migrations/0006-idempotency-keys.js';
import * as activityProcessGroups from './migrations/0007-activity-process-groups.js';
import * as codebaseDeletionClaim from './migrations/0008-codebase-deletion-claim.js';
import * as chatDoors from './migrations/0009-chat-doors.js';
import * as codeHostDeliveries from './migrations/0010-code-host-deliveries.js';
import * as untrustedWorktrees from './migrations/0011-untrusted-worktrees.js';
import * as runInputs from './migrations/0012-run-inputs.js';
import * as runWaitingUntil from './migrations/0013-run-waiting-until.js';
import * as runOrigins from './migrations/0014-run-origins.js';
import * as runListFilters from './migrations/0015-run-list-filters.js';
import * as runWorkflowCounts from './migrations/0016-run-workflow-counts.js';
import * as dashboardNodeFigures from './migrations/0017-dashboard-node-figures.js';
import * as runRowOrder from './migrations/0018-run-row-order.js';
import * as runDurations from './migrations/0019-run-durations.js';
import * as codebaseChangeNotices from './migrations/0020-codebase-change-notices.js';

export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// Listed in code rather than read from a folder: the order is explicit, and the same list works
// from TypeScript sources and from a compiled build.
export const MIGRATIONS: readonly Migration[] = [
  { name: '0001-core-tables', ...coreTables },
  { name: '0002-turn-replies', ...turnReplies },
  { name: '0003-one-row-per-event', ...oneRowPerEvent },
  { name: '0004-run-status-counts', ...runStatusCounts },
  { name: '0005-sign-in', ...signIn },
  { name: '0006-idempotency-keys', ...idempotencyKeys },
  { name: '0007-activity-process-groups', ...activityProcessGroups },
  { name: '0008-codebase-deletion-claim', ...codebaseDeletionClaim },
  { name: '0009-chat-doors', ...chatDoors },
  { name: '0010-code-host-deliveries', ...codeHostDeliveries },
  { name: '0011-untrusted-worktrees', ...untrustedWorktrees },
  { name: '0012-run-inputs', ...runInputs },
  { name: '0013-run-waiting-until', ...runWaitingUntil },
  { name: '0014-run-origins', ...runOrigins },
  { name: '0015-run-list-filters', ...runListFilters },
  { name: '0016-run-workflow-counts', ...runWorkflowCounts },
  { name: '0017-dashboard-node-figures', ...dashboardNodeFigures },
  { name: '0018-run-row-order', ...runRowOrder },
  { name: '0019-run-durations', ...runDurations },
  { name: '0020-codebase-change-notices', ...codebaseChangeNotices },
];

/** Every migration's name, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = MIGRATIONS.map((migration) => migration.name);

const source: Knex.MigrationSource<Migration> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration,
};

const settings = { migrationSource: source, tableName: 'cairn_migrations' };

// Another process migrating the same database at the same moment (an API replica and a worker
// starting together) makes knex fail creating its own bookkeeping tables or finding them locked.
const CONCURRENT_MIGRATION = /already exists|already locked|MigrationLocked|SQLITE_BUSY|duplicate key value/i;

/**
 * Applies every pending migration; returns the names applied. Safe to call from many processes:
 * one migrates, the others wait (up to `waitMs`) for its lock.
 */
export async function migrateToLatest(knex: Knex, waitMs = 120_000): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await prepareLockTable(knex);
      const [, applied] = (await knex.migrate.latest(settings)) as [number, string[]];
      return applied;
    } catch (error) {
      const message = String((error as Error).message);
      if (!CONCURRENT_MIGRATION.test(message)) throw error;
      if (Date.now() > deadline) {
        throw new Error(
          `migrations stayed locked for ${Math.round(waitMs / 1000)} s; if no other Cairn process is migrating, ` +
            'a crashed one left the lock: run `cairn migrate --unlock`',
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400));
    }
  }
}

/**
 * Knex creates its lock table and its single row with check-then-insert, so processes starting
 * together can insert two rows; every later attempt then reads "already locked" forever. The
 * row is made here instead, keyed so that a second insert is a no-op (and extra rows a racing
 * knex made before are removed).
 */
async function prepareLockTable(knex: Knex): Promise<void> {
  const table = `${settings.tableName}_lock`;
  if (!(await knex.schema.hasTable(table))) {
    await knex.schema.createTable(table, (t) => {
      t.increments('index').primary();
      t.integer('is_locked');
    });
  }
  await knex(table).insert({ index: 1, is_locked: 0 }).onConflict('index').ignore();
  await knex(table).whereNot('index', 1).delete();
}

/** Releases the migration lock a crashed process left behind. */
export async function unlockMigrations(knex: Knex): Promise<void> {
  await knex.migrate.forceFreeMigrationsLock(settings);
}

export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const [, pending] = (await knex.migrate.list(settings)) as [unknown, Migration[]];
  return pending.map((migration) => migration.name);
}

export async function rollbackAll(knex: Knex): Promise<void> {
  await knex.migrate.rollback(settings, true);
}
