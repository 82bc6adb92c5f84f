/**
 * The `where` of a hand-written read (db/sql-reader.ts), built clause by clause with its
 * parameters kept in order beside it.
 */
export class SqlConditions {
  private readonly clauses: string[] = [];
  readonly params: unknown[] = [];

  /** A clause with `?` placeholders and their values, in order. */
  add(clause: string, ...params: unknown[]): this {
    this.clauses.push(clause);
    this.params.push(...params);
    return this;
  }

  /** `column in (…)`; an empty list matches nothing. */
  in(column: string, values: readonly unknown[]): this {
    if (values.length === 0) return this.add('1 = 0');
    return this.add(`${column} in (${values.map(() => '?').join(', ')})`, ...values);
  }

  /**
   * `expression` contains `text`, ignoring case, with the text's own `%`, `_` and `\` taken
   * literally (the same on SQLite and Postgres).
   */
  contains(expression: string, text: string): this {
    return this.add(`lower(${expression}) like ? escape '\\'`, containsPattern(text));
  }

  /** ` where a and b`, or nothing when no clause was added. */
  get where(): string {
    return this.clauses.length > 0 ? ` where ${this.clauses.join(' and ')}` : '';
  }
}

/**
 * ` limit N` written into the SQL text rather than bound: a prepared statement's generic plan on
 * Postgres does not know a bound limit and may scan and sort the whole table instead of walking
 * the index. Only ever an integer, so nothing from a request reaches the text.
 */
export function limitClause(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`not a row limit: ${limit}`);
  return ` limit ${limit}`;
}

/** A LIKE pattern matching any text that contains `text` (lower-cased, its wildcards escaped). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
