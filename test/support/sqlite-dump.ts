import Database from 'better-sqlite3';

/**
 * A SQLite database as SQL text, and back: how the upgrade test keeps an old release's databases
 * in the repository without committing binary files. Tables first, then their rows (blobs as
 * X'…', integers exact), then indexes and triggers, so triggers do not fire on the reload.
 */
export function dumpSqlite(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const objects = db
      .prepare('select type, name, tbl_name, sql from sqlite_master where sql is not null order by rowid')
      .all() as Array<{ type: string; name: string; sql: string }>;
    const tables = objects.filter((entry) => entry.type === 'table' && !entry.name.startsWith('sqlite_'));
    // Full-text tables (Temporal's visibility) make their shadow tables themselves, which SQLite
    // then guards against writes: their index is rebuilt from the content table instead.
    const virtual = tables
      .filter((entry) => /^create virtual table/i.test(entry.sql))
      .map((entry) => entry.name);
    const isShadow = (name: string) =>
      virtual.some((owner) => SHADOW_SUFFIXES.some((suffix) => name === owner + suffix));
    const lines = ['PRAGMA foreign_keys=OFF;', 'BEGIN TRANSACTION;'];
    for (const table of tables) if (!isShadow(table.name)) lines.push(`${singleQuotedPaths(table.sql)};`);
    for (const table of [...tables, ...sequenceTable(db)]) {
      if (virtual.includes(table.name) || isShadow(table.name)) continue;
      // Generated columns are computed again on insert: only the stored ones are written.
      const columns = (db.pragma(`table_xinfo("${table.name}")`) as Array<{ name: string; hidden: number }>)
        .filter((column) => column.hidden === 0)
        .map((column) => `"${column.name}"`)
        .join(',');
      const rows = db
        .prepare(`select ${columns} from "${table.name}"`)
        .raw()
        .safeIntegers(true)
        .all() as unknown[][];
      for (const row of rows) {
        lines.push(`INSERT INTO "${table.name}"(${columns}) VALUES(${row.map(literal).join(',')});`);
      }
    }
    for (const entry of objects) {
      if (entry.type === 'index' || entry.type === 'trigger' || entry.type === 'view') {
        lines.push(`${singleQuotedPaths(entry.sql)};`);
      }
    }
    for (const name of virtual) lines.push(`INSERT INTO "${name}"("${name}") VALUES('rebuild');`);
    lines.push('COMMIT;');
    return `${lines.join('\n')}\n`;
  } finally {
    db.close();
  }
}

const SHADOW_SUFFIXES = ['_data', '_idx', '_content', '_docsize', '_config'];

/** Makes `file` (which must not exist) from a dump. */
export function loadSqliteDump(sql: string, file: string): void {
  const db = new Database(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/**
 * Temporal's schema writes JSON paths as double-quoted strings (`"$.KeywordList03"`), which SQLite
 * reads as string literals only when built to allow that; better-sqlite3 is not. The same paths in
 * single quotes mean the same everywhere.
 */
function singleQuotedPaths(sql: string): string {
  return sql.replace(/"(\$\.[^"']*)"/g, "'$1'");
}

function sequenceTable(db: Database.Database): Array<{ name: string }> {
  const found = db.prepare("select 1 from sqlite_master where name = 'sqlite_sequence'").get();
  return found ? [{ name: 'sqlite_sequence' }] : [];
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NULL';
  if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
  return `'${String(value).replace(/'/g, "''")}'`;
}
