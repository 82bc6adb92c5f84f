import Database from 'better-sqlite3';

/**
 * Copies a SQLite database with SQLite's online backup API: a consistent snapshot of one moment,
 * taken while other processes keep writing (they are never blocked for long), WAL included.
 */
export async function backupSqliteFile(source: string, destination: string): Promise<void> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    await db.backup(destination);
  } finally {
    db.close();
  }
}

/** SQLite's own check of a database file: undefined when it is sound, else what is wrong. */
export function sqliteFileProblem(file: string): string | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const problems = rows.map((row) => row.integrity_check).filter((text) => text !== 'ok');
    return problems.length > 0 ? problems.slice(0, 3).join('; ') : undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    db?.close();
  }
}
