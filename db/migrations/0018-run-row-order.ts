import type { Knex } from 'knex';

// A run's row holds its workflow's definition: a few KB of JSON for a real workflow (the bundled
// ones are 0.2-13 KB of YAML). SQLite stores a row's columns in order, and a row too large for its
// page keeps as little as its first ~490 bytes there, the rest in a chain of overflow pages. With
// the definition in the middle of the row, every column after it (the times, the token counts,
// the inputs, every column added since) lived in that chain, and each list of runs walked it for
// every row: the dashboard's statement 112 -> 137 us with the bundled review-pr definition
// (bench/README.md, 2026-11-30). Here the table is rebuilt with its small columns first, then the
// texts a list shows (which may be long), then the definition, which only a run's own reads load.
//
// Postgres moves a wide value out of its row by itself (TOAST), so only SQLite is rebuilt.
// A column added later with ADD COLUMN lands after the definition again: a migration that adds
// one calls rebuildRunTable after it (test/integration/db/run-row-order.test.ts fails until then).

const TABLE = 'workflow_runs';
const REBUILT = 'workflow_runs_rebuilt';

/** The columns that go last, in this order: texts of any length, then the definition. */
export const RUN_COLUMNS_LAST = ['message', 'error', 'inputs', 'definition'] as const;

/** Splits the inside of a CREATE TABLE's parentheses at its top-level commas. */
function topLevelItems(body: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"' || char === '`') quote = char;
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === ',' && depth === 0) {
      items.push(body.slice(start, index).trim());
      start = index + 1;
    }
  }
  items.push(body.slice(start).trim());
  return items;
}

const TABLE_CONSTRAINT = /^(constraint|primary\s+key|foreign\s+key|unique|check)\b/i;

/** A column definition's name, unquoted. */
const columnName = (item: string) => /^[`"[]?([^`"\]\s]+)/.exec(item)?.[1] ?? item;

/**
 * The table's CREATE statement with its columns reordered, under another name: every column in
 * its present order except RUN_COLUMNS_LAST, which follow in theirs; then the table's constraints.
 */
export function reorderedCreateSql(createSql: string, name: string): { sql: string; columns: string[] } {
  const open = createSql.indexOf('(');
  const items = topLevelItems(createSql.slice(open + 1, createSql.lastIndexOf(')')));
  const constraints = items.filter((item) => TABLE_CONSTRAINT.test(item));
  const definitions = items.filter((item) => !TABLE_CONSTRAINT.test(item));
  const rank = (item: string) => (RUN_COLUMNS_LAST as readonly string[]).indexOf(columnName(item));
  const ordered = [
    ...definitions.filter((item) => rank(item) < 0),
    ...definitions.filter((item) => rank(item) >= 0).sort((a, b) => rank(a) - rank(b)),
  ];
  return {
    sql: `CREATE TABLE \`${name}\` (${[...ordered, ...constraints].join(', ')})`,
    columns: ordered.map(columnName),
  };
}

/** Rebuilds SQLite's workflow_runs in the order above, its rows, indexes and triggers unchanged. */
export async function rebuildRunTable(knex: Knex): Promise<void> {
  const schema = (await knex.raw(`select type, name, sql from sqlite_master where tbl_name = ?`, [
    TABLE,
  ])) as {
    type: string;
    name: string;
    sql: string | null;
  }[];
  const table = schema.find((entry) => entry.type === 'table');
  if (!table?.sql) throw new Error(`migration 0018: no table ${TABLE}`);
  const { sql, columns } = reorderedCreateSql(table.sql, REBUILT);
  // Its indexes and triggers go with the old table (no trigger fires on the way: SQLite drops a
  // table's triggers before its rows); no other table has a foreign key to it.
  const dependents = schema.filter((entry) => entry.type !== 'table' && entry.sql !== null);
  const list = columns.map((column) => `\`${column}\``).join(', ');
  await knex.raw(sql);
  await knex.raw(`insert into \`${REBUILT}\` (${list}) select ${list} from \`${TABLE}\``);
  await knex.raw(`drop table \`${TABLE}\``);
  await knex.raw(`alter table \`${REBUILT}\` rename to \`${TABLE}\``);
  for (const entry of dependents) await knex.raw(entry.sql as string);
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') await rebuildRunTable(knex);
}

// The order of a table's columns means nothing to a query, so there is nothing to undo.
export async function down(): Promise<void> {}
