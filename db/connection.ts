import type BetterSqlite3 from 'better-sqlite3';
import knexFactory, { type Knex } from 'knex';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Dialect } from './dialect.js';
import { PostgresReader, SqliteReader, type SqlReader } from './sql-reader.js';
import { cachePrepare } from './statement-cache.js';
import { CodebasePathCache } from './codebase-path-cache.js';
import { WalCheckpoints, type WalCheckpointOptions } from './wal-checkpoints.js';

// Knex prints to the console by default, e.g. "Migration table is already locked" each time a
// second process waits for migrations; that is expected and retried, so it is not shown.
const quietKnexLog = { warn() {}, deprecate() {}, debug() {}, error() {} };

export type { Dialect } from './dialect.js';

export interface Database {
  knex: Knex;
  /** Prepared reads for the hot paths (committed rows only; never inside a transaction). */
  reader: SqlReader;
  dialect: Dialect;
  /** Where the data lives, without credentials: a file path or `host:port/db`. */
  location: string;
  /**
   * Postgres: the codebase at a checkout path, kept while this process hears the database's change
   * notices (the journal listener trusts it). SQLite reads are cheap enough without it.
   */
  codebasePaths?: CodebasePathCache;
  /** SQLite with `backgroundCheckpoints`: the thread that copies the log back (db/wal-checkpoints.ts). */
  walCheckpoints?: WalCheckpoints;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A Postgres connection string; when absent the embedded SQLite file is used. */
  databaseUrl?: string;
  sqliteFile: string;
  /** Postgres pool size; the API and worker share one process in `cairn start`. */
  poolMax?: number;
  /**
   * SQLite: checkpoints in a worker thread instead of inside the writer's commits on the event
   * loop (db/wal-checkpoints.ts). For the long-running processes; short-lived ones leave it off.
   */
  backgroundCheckpoints?: boolean | WalCheckpointOptions;
}

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolMax ?? 10)
    : openSqlite(options.sqliteFile, options.backgroundCheckpoints);
}

function openSqlite(file: string, backgroundCheckpoints: DatabaseOptions['backgroundCheckpoints']): Database {
  mkdirSync(dirname(file), { recursive: true });
  const checkpoints = backgroundCheckpoints
    ? new WalCheckpoints(file, backgroundCheckpoints === true ? {} : backgroundCheckpoints)
    : undefined;
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    log: quietKnexLog,
    pool: {
      // WAL lets readers proceed while a writer commits; busy_timeout makes a second
      // process (API and worker split) wait for the lock instead of failing at once.
      afterCreate(conn: BetterSqlite3.Database, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma('journal_mode = WAL');
        conn.pragma('busy_timeout = 5000');
        conn.pragma('foreign_keys = ON');
        conn.pragma('synchronous = NORMAL');
        if (checkpoints) conn.pragma(`wal_autocheckpoint = ${checkpoints.writerAutocheckpoint}`);
        cachePrepare(conn);
        done(null, conn);
      },
    },
  });
  const reader = new SqliteReader(file);
  checkpoints?.start(async () => {
    await knex.raw(`pragma wal_autocheckpoint = ${checkpoints.writerAutocheckpoint}`);
  });
  const close = async () => {
    await checkpoints?.stop();
    await reader.close();
    await knex.destroy();
  };
  return { knex, reader, dialect: 'sqlite', location: file, walCheckpoints: checkpoints, close };
}

function openPostgres(url: string, poolMax: number): Database {
  const knex = knexFactory({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: poolMax },
    log: quietKnexLog,
  });
  const reader = new PostgresReader(url);
  return {
    knex,
    reader,
    codebasePaths: new CodebasePathCache(),
    dialect: 'postgres',
    location: describePostgresUrl(url),
    close: async () => {
      await reader.close();
      await knex.destroy();
    },
  };
}

/** host:port/database, never the user or password. */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'postgres (unparseable URL)';
  }
}
