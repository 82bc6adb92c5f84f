import knexFactory from 'knex';
import { randomBytes } from 'node:crypto';
import { copyFileSync } from 'node:fs';
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

// Running every migration for each test costs more than the test itself on Postgres (about 0.3 s
// of DDL): each kind migrates one template per test process, and each test gets a copy of it.
// The state lives on globalThis, like the Temporal server's (temporal.ts), so that a process
// holding two instances of this module still makes one template of each kind.
const templates = ((globalThis as Record<symbol, unknown>)[Symbol.for('cairn.test.database-templates')] ??=
  {}) as {
  sqlite?: Promise<{ file: string; cleanup(): void }>;
  postgres?: Promise<{ name: string; adminUrl: string }>;
};

function sqliteTemplate(): Promise<{ file: string; cleanup(): void }> {
  templates.sqlite ??= (async () => {
    const dir = makeTempDir('cairn-db-template-');
    const file = join(dir.path, 'cairn.db');
    const db = openDatabase({ sqliteFile: file });
    await migrateToLatest(db.knex);
    // Closing checkpoints the write-ahead log into the file, so the file alone is the database.
    await db.close();
    return { file, cleanup: dir.cleanup };
  })();
  return templates.sqlite;
}

const sqliteKind: DatabaseKind = {
  name: 'sqlite',
  async create(options = {}) {
    const dir = makeTempDir('cairn-db-');
    const sqliteFile = join(dir.path, 'cairn.db');
    if (options.migrate !== false) copyFileSync((await sqliteTemplate()).file, sqliteFile);
    const db = openDatabase({ sqliteFile });
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

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(sql);
  } finally {
    await admin.destroy();
  }
}

function testDatabaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A migrated database that no one stays connected to, as CREATE DATABASE … TEMPLATE requires. */
function postgresTemplate(adminUrl: string): Promise<{ name: string; adminUrl: string }> {
  templates.postgres ??= (async () => {
    const name = `cairn_template_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    const db = openDatabase({ databaseUrl: testDatabaseUrl(adminUrl, name), sqliteFile: '' });
    try {
      await migrateToLatest(db.knex);
    } finally {
      await db.close();
    }
    return { name, adminUrl };
  })();
  return templates.postgres;
}

/** Drops the templates this process made (the root hook calls it once every file has run). */
export async function dropDatabaseTemplates(): Promise<void> {
  const { sqlite, postgres } = templates;
  templates.sqlite = undefined;
  templates.postgres = undefined;
  (await sqlite?.catch(() => undefined))?.cleanup();
  const template = await postgres?.catch(() => undefined);
  if (template) await adminQuery(template.adminUrl, `DROP DATABASE IF EXISTS ${template.name} WITH (FORCE)`);
}

/** Each test database is a new Postgres database on the TEST_DATABASE_URL server (a copy of the migrated template), dropped after. */
function postgresKind(adminUrl: string): DatabaseKind {
  return {
    name: 'postgres',
    async create(options = {}) {
      const name = `cairn_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      const template = options.migrate === false ? undefined : await postgresTemplate(adminUrl);
      await adminQuery(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template.name}` : ''}`);
      const databaseUrl = testDatabaseUrl(adminUrl, name);
      const db = openDatabase({ databaseUrl, sqliteFile: '' });
      return {
        db,
        databaseUrl,
        async dispose() {
          await db.close();
          await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
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
