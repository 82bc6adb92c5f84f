import knexFactory from 'knex';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { makeTempDir } from './temp-dirs.js';

export interface TestDatabase {
  db: Database;
  /** The DATABASE_URL of a Postgres database, for starting a service against it. */
  databaseUrl?: string;
  sqliteFile?: string;
  dispose(): Promise<void>;
}

export interface DatabaseKind {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty database (migrated unless told otherwise). */
  create(options?: { migrate?: boolean }): Promise<TestDatabase>;
}

const sqliteKind: DatabaseKind = {
  name: 'sqlite',
  async create(options = {}) {
    const dir = makeTempDir('cairn-db-');
    const sqliteFile = join(dir.path, 'cairn.db');
    const db = openDatabase({ sqliteFile });
    if (options.migrate !== false) await migrateToLatest(db.knex);
    return {
      db,
      sqliteFile,
      async dispose() {
        await db.close();
        dir.cleanup();
      },
    };
  },
};

/** Each test database is a new Postgres database on the TEST_DATABASE_URL server, dropped after. */
function postgresKind(adminUrl: string): DatabaseKind {
  return {
    name: 'postgres',
    async create(options = {}) {
      const name = `cairn_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      await admin.raw(`CREATE DATABASE ${name}`);
      await admin.destroy();
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      const databaseUrl = url.toString();
      const db = openDatabase({ databaseUrl, sqliteFile: '' });
      if (options.migrate !== false) await migrateToLatest(db.knex);
      return {
        db,
        databaseUrl,
        async dispose() {
          await db.close();
          const cleanup = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
          await cleanup.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await cleanup.destroy();
        },
      };
    },
  };
}

/** SQLite always; Postgres as well when TEST_DATABASE_URL is set (CI sets it). */
export function databaseKinds(): DatabaseKind[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [sqliteKind, postgresKind(url)] : [sqliteKind];
}
