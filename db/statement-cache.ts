import type BetterSqlite3 from 'better-sqlite3';

// Every distinct SQL text is one cached statement; the texts are constants of the code, and the
// bound keeps a caller that builds SQL from data from growing the cache without end.
export const MAX_STATEMENTS = 500;

/** Prepared SQLite statements by their SQL text, for one connection. */
export class StatementCache {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(private readonly prepare: (sql: string) => BetterSqlite3.Statement) {}

  get(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      statement = this.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  clear(): void {
    this.statements.clear();
  }
}

/**
 * Makes a connection's `prepare` answer from a cache. Knex's better-sqlite3 client prepares the
 * SQL again on every query, and parsing and planning cost about as much as running a small
 * statement; a write path that runs the same few texts thousands of times pays it each time.
 */
export function cachePrepare(connection: BetterSqlite3.Database): void {
  const cache = new StatementCache(connection.prepare.bind(connection));
  connection.prepare = ((sql: string) => {
    const statement = cache.get(sql);
    // Knex may switch a statement to BigInt results for one query; the next one starts plain.
    statement.safeIntegers(false);
    return statement;
  }) as BetterSqlite3.Database['prepare'];
}
