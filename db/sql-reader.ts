import type { Knex } from 'knex';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { Dialect } from './dialect.js';
import { PipelinedPostgres } from './pg-pipeline.js';
import { typesWithIsoTimes } from './pg-time-text.js';
import { MAX_STATEMENTS, StatementCache } from './statement-cache.js';

/**
 * The hot read paths (one record, one page of a list) run their SQL without the query builder:
 * written once, portable between the dialects (`?` placeholders), and prepared once. Knex costs
 * about ten times the query itself on a point lookup.
 *
 * On SQLite the reads use a read-only connection of their own, so they never queue behind the
 * writer's connection and only ever see committed rows (WAL lets them read while it commits).
 * That also means a reader never sees a transaction's own uncommitted writes: code inside a
 * transaction reads through its knex transaction instead.
 */
export interface SqlReader {
  /** Which SQL the reader speaks, for the few expressions the dialects write differently. */
  readonly dialect: Dialect;
  all<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  first<Row>(sql: string, params?: readonly unknown[]): Promise<Row | undefined>;
  /** For good: every later read is refused. */
  close(): Promise<void>;
}

/** How much of the SQLite file the reader maps (address space, not memory). */
const READER_MMAP_BYTES = 1024 * 1024 * 1024;

export class SqliteReader implements SqlReader {
  readonly dialect = 'sqlite';
  private connection: BetterSqlite3.Database | undefined;
  private closed = false;
  private readonly statements = new StatementCache((sql) => this.open().prepare(sql));

  constructor(private readonly file: string) {}

  // Async only in signature: better-sqlite3 answers at once, and a throw becomes a rejection.
  async all<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return this.statements.get(sql).all(...params) as Row[];
  }

  async first<Row>(sql: string, params: readonly unknown[] = []): Promise<Row | undefined> {
    return this.statements.get(sql).get(...params) as Row | undefined;
  }

  /** For good: like knex after destroy(), a closed reader refuses every read. */
  async close(): Promise<void> {
    this.closed = true;
    this.statements.clear();
    this.connection?.close();
    this.connection = undefined;
  }

  // Opened on first use: the file and its tables exist only once the writer has migrated them.
  private open(): BetterSqlite3.Database {
    if (this.closed) throw new Error('The database connection is closed.');
    if (!this.connection) {
      const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
      const connection = new Database(this.file, { readonly: true, fileMustExist: true });
      connection.pragma('busy_timeout = 5000');
      // Reads through a memory map of the file instead of copying pages into a private cache:
      // the pages are the OS's (shared, given back under pressure), and a hot page costs no call.
      connection.pragma(`mmap_size = ${READER_MMAP_BYTES}`);
      this.connection = connection;
    }
    return this.connection;
  }
}

/** `?` placeholders to pg's `$1, $2, …` (the SQL of the readers has no `?` inside literals). */
function numberedPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

/**
 * On Postgres the reads go over pipelined connections of their own (db/pg-pipeline.ts), apart
 * from knex's pool, which keeps the writes and transactions. Each SQL text is a named prepared
 * statement, so the server parses and plans it once per connection. Its rows hold times as ISO
 * text (db/pg-time-text.ts), where knex's hold Dates: toIso takes either.
 */
export class PostgresReader implements SqlReader {
  readonly dialect = 'postgres';
  private readonly prepared = new Map<string, { name?: string; text: string }>();
  private readonly connections: PipelinedPostgres;

  constructor(url: string) {
    // Times come back as the ISO text the repositories return, without a Date in between.
    this.connections = new PipelinedPostgres(url, typesWithIsoTimes());
  }

  async all<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const { rows } = await this.connections.query({
      ...this.statement(sql),
      values: [...params],
    });
    return rows as Row[];
  }

  async first<Row>(sql: string, params: readonly unknown[] = []): Promise<Row | undefined> {
    return (await this.all<Row>(sql, params))[0];
  }

  close(): Promise<void> {
    return this.connections.close();
  }

  private statement(sql: string): { name?: string; text: string } {
    const known = this.prepared.get(sql);
    if (known) return known;
    const text = numberedPlaceholders(sql);
    // Past the bound a text runs unnamed (parsed each time) rather than piling up on the server.
    if (this.prepared.size >= MAX_STATEMENTS) return { text };
    // A name stays bound to its text on every connection that prepared it, so it is never reused.
    const statement = { name: `cairn_read_${this.prepared.size + 1}`, text };
    this.prepared.set(sql, statement);
    return statement;
  }
}

/**
 * A knex connection or transaction as a reader, for the code that must read inside a transaction
 * (or has only knex at hand) with the same SQL as the hot paths.
 */
export function readerOf(knex: Knex): SqlReader {
  const postgres = knex.client.config.client === 'pg';
  const all = async <Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> => {
    const result = (await knex.raw(sql, [...params] as Knex.RawBinding[])) as unknown;
    return (postgres ? (result as { rows: Row[] }).rows : result) as Row[];
  };
  return {
    dialect: postgres ? 'postgres' : 'sqlite',
    all,
    first: async <Row>(sql: string, params?: readonly unknown[]) => (await all<Row>(sql, params))[0],
    close: async () => {},
  };
}

/** Where a repository read can run: the hot-path reader, or knex (a transaction included). */
export type ReadSource = Knex | SqlReader;

export function toReader(source: ReadSource): SqlReader {
  // A knex instance or transaction is a function; a reader is a plain object.
  return typeof source === 'function' ? readerOf(source) : source;
}
