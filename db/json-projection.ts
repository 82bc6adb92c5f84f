import type { Dialect } from './dialect.js';

/**
 * How a column becomes a field of a JSON object written by the database:
 * - `value`: as stored (text, number or null);
 * - `time`: a timestamp as the ISO text Date#toISOString writes (milliseconds, `Z`), or null.
 *   SQLite holds exactly that text (Cairn writes every time through nowIso or toISOString), so
 *   it is sent as stored: reformatting each value cost half the page;
 * - `present`: true when the column is not null (`deleted` from `deleted_at`);
 * - `json`: JSON text Cairn stored (an event's payload), embedded as the value it holds; on
 *   SQLite text that is not JSON is written as `{}`, as the repositories' parseJson reads it.
 */
export type JsonColumnKind = 'value' | 'time' | 'present' | 'json';

/** A field the database computes: an SQL expression of the repository's own making, never input. */
export interface JsonExpression {
  sql: string;
}

/** A JSON object's fields, in order, each a column and how to write it (or an expression). */
export type JsonProjection = Readonly<
  Record<string, readonly [column: string, kind?: JsonColumnKind] | JsonExpression>
>;

/** A field name is code, not data; it is written into SQL as a literal, so only plain names pass. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function fieldSql(dialect: Dialect, column: string, kind: JsonColumnKind): string {
  if (!FIELD_NAME.test(column)) throw new Error(`not a column name: ${column}`);
  switch (kind) {
    case 'value':
      return column;
    case 'present':
      return dialect === 'sqlite'
        ? `json(case when ${column} is null then 'false' else 'true' end)`
        : `(${column} is not null)`;
    case 'json':
      return dialect === 'sqlite'
        ? `(case when ${column} is null then null when json_valid(${column}) then json(${column}) else json('{}') end)`
        : `(${column})::json`;
    case 'time':
      // Postgres writes a timestamptz in its own form: reformatted, truncated to milliseconds
      // as the pg driver's Date was.
      return dialect === 'sqlite'
        ? column
        : `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }
}

/**
 * The SQL expression of one row as JSON text, for lists whose rows go to the client as they are:
 * the database writes the JSON, which costs a third of reading the columns into objects and
 * serializing those (one value per row crosses into JavaScript instead of a dozen). Numbers are
 * written by the database: SQLite keeps 15 significant digits of a float.
 */
export function jsonObjectSql(dialect: Dialect, projection: JsonProjection): string {
  return written(projection, dialect);
}

/**
 * The SQL of a JSON array of `item` (an expression whose value is JSON text) over the rows its
 * subquery selects, in `orderBy` order; `[]` when there are none. Ordered `string_agg` is the
 * same SQL on Postgres and on SQLite (3.44 and later; better-sqlite3 bundles its own).
 */
export function jsonArraySql(item: string, orderBy: string): string {
  return `coalesce('[' || string_agg(${item}, ',' order by ${orderBy}) || ']', '[]')`;
}

/**
 * `make(key)` made once per key object: for what is derived from the projections, which are
 * constants of the code, so it is not rebuilt on every request.
 */
export function oncePer<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    if (!made.has(key)) made.set(key, make(key));
    return made.get(key)!;
  };
}

/** oncePer, for each dialect. */
export function oncePerDialect<K extends object, V>(make: (key: K, dialect: Dialect) => V) {
  const sqlite = oncePer((key: K) => make(key, 'sqlite'));
  const postgres = oncePer((key: K) => make(key, 'postgres'));
  return (key: K, dialect: Dialect): V => (dialect === 'sqlite' ? sqlite(key) : postgres(key));
}

const written = oncePerDialect((projection: JsonProjection, dialect) =>
  writeJsonObjectSql(dialect, projection),
);

function writeJsonObjectSql(dialect: Dialect, projection: JsonProjection): string {
  const fields = Object.entries(projection).map(([field, source]) => {
    if (!FIELD_NAME.test(field)) throw new Error(`not a field name: ${field}`);
    if ('sql' in source) return { field, sql: source.sql };
    const [column, kind = 'value'] = source;
    return { field, sql: fieldSql(dialect, column, kind) };
  });
  if (dialect === 'sqlite')
    return `json_object(${fields.map(({ field, sql }) => `'${field}', ${sql}`).join(', ')})`;
  // row_to_json of a one-row select of the fields (whose names and values it takes from the row's
  // type once), not json_build_object, which works out how to write each argument on every row:
  // a quarter less of the database's time per row of a 21-field run. Its text is compact too.
  const columns = fields.map(({ field, sql }) => `${sql} as "${field}"`).join(', ');
  return `(select row_to_json(json_fields) from (select ${columns}) json_fields)::text`;
}

/** A row the database wrote as JSON, and its position in its list, read back only when asked. */
export interface JsonRow<Position> {
  json: string;
  position(): Position;
  /**
   * One key of the position. When the projection writes that key's field first, it is read from
   * the start of the text without parsing the rest (the dashboard wants every row's id, and
   * parsing each row was a tenth of its page).
   */
  positionKey(key: keyof Position): string;
}

/**
 * The projection's first field when the text starts with it as a plain string (`{"runId":"…"`,
 * as both dialects write it; spaces around the colon allowed). Undefined otherwise (an escaped
 * character, another shape), and the caller parses the row.
 */
export function leadingString(json: string, field: string): string | undefined {
  const opening = `{"${field}"`;
  if (!json.startsWith(opening)) return undefined;
  let at = opening.length;
  while (json[at] === ' ') at += 1;
  if (json[at] !== ':') return undefined;
  at += 1;
  while (json[at] === ' ') at += 1;
  if (json[at] !== '"') return undefined;
  const end = json.indexOf('"', at + 1);
  if (end < 0) return undefined;
  const value = json.slice(at + 1, end);
  return value.includes('\\') ? undefined : value;
}

/**
 * Rows as JsonRow: `columns` names, for each key of a position, the column the projection writes
 * it from (as is, or as a time). Only the row a pager asks for is parsed: selecting the key
 * columns beside the JSON cost a quarter of a 50-row page.
 */
export function jsonRows<Position extends Record<string, string>>(
  projection: JsonProjection,
  columns: { [Key in keyof Position]: string },
): (texts: readonly string[]) => JsonRow<Position>[] {
  const fields = Object.entries(columns).map(([key, column]) => {
    const field = Object.entries(projection).find(
      ([, source]) => !('sql' in source) && source[0] === column && (source[1] ?? 'value') !== 'present',
    )?.[0];
    if (!field) throw new Error(`the projection writes no field from the column ${column}`);
    return [key, field] as const;
  });
  const position = (json: string) => {
    const row = JSON.parse(json) as Record<string, string>;
    return Object.fromEntries(fields.map(([key, field]) => [key, row[field]])) as Position;
  };
  // The position key written as the projection's first field, if any: found once, not per row.
  const firstField = Object.keys(projection)[0]!;
  const leadingKey = fields.find(([, field]) => field === firstField)?.[0];
  const positionKey = (json: string, key: keyof Position): string =>
    (key === leadingKey ? leadingString(json, firstField) : undefined) ?? position(json)[key]!;
  return (texts) =>
    texts.map((json) => ({
      json,
      position: () => position(json),
      positionKey: (key) => positionKey(json, key),
    }));
}
