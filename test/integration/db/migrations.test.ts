import { expect } from 'chai';
import { databaseKinds } from '../../support/databases.js';
import { MIGRATION_NAMES, migrateToLatest, pendingMigrations, rollbackAll } from '../../../db/migrate.js';
import { openDatabase } from '../../../db/connection.js';

const CORE_TABLES = [
  'codebases',
  'conversations',
  'messages',
  'assistant_sessions',
  'isolation_environments',
  'workflow_runs',
  'events',
];

for (const kind of databaseKinds()) {
  describe(`migrations (${kind.name})`, () => {
    it('creates every core table, is idempotent, and rolls back cleanly', async () => {
      const test = await kind.create({ migrate: false });
      try {
        const { knex } = test.db;
        expect(await pendingMigrations(knex)).to.deep.equal(MIGRATION_NAMES);
        expect(await migrateToLatest(knex)).to.deep.equal(MIGRATION_NAMES);
        for (const table of CORE_TABLES) expect(await knex.schema.hasTable(table), table).to.equal(true);
        expect(await migrateToLatest(knex)).to.deep.equal([]);
        expect(await pendingMigrations(knex)).to.deep.equal([]);
        await rollbackAll(knex);
        for (const table of CORE_TABLES) expect(await knex.schema.hasTable(table), table).to.equal(false);
      } finally {
        await test.dispose();
      }
    });

    it('lets several connections migrate the same database at once (API and worker starting together)', async () => {
      const test = await kind.create({ migrate: false });
      const others = [1, 2, 3].map(() =>
        openDatabase({ databaseUrl: test.databaseUrl, sqliteFile: test.sqliteFile ?? '' }),
      );
      try {
        const results = await Promise.all([test.db, ...others].map((db) => migrateToLatest(db.knex)));
        expect(results.flat()).to.deep.equal(MIGRATION_NAMES);
        expect(await pendingMigrations(test.db.knex)).to.deep.equal([]);
      } finally {
        for (const db of others) await db.close();
        await test.dispose();
      }
    });

    it('recovers when racing knex processes left two rows in its lock table', async () => {
      const test = await kind.create({ migrate: false });
      try {
        const { knex } = test.db;
        await knex.schema.createTable('cairn_migrations_lock', (t) => {
          t.increments('index').primary();
          t.integer('is_locked');
        });
        await knex('cairn_migrations_lock').insert([{ is_locked: 0 }, { is_locked: 0 }]);
        expect(await migrateToLatest(knex, 5_000)).to.deep.equal(MIGRATION_NAMES);
        const rows = await knex('cairn_migrations_lock').select('index');
        expect(rows).to.have.length(1);
      } finally {
        await test.dispose();
      }
    });
  });
}
