// Small conversions shared by the repositories, so both dialects read back the same values.

// The exact form Date#toISOString writes, which is how Cairn stores times in SQLite.
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Postgres returns Date objects, SQLite the ISO text we wrote. */
export function toIso(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  // Already canonical: skip the parse and re-format, which dominated 50-row pages.
  if (typeof value === 'string' && CANONICAL_ISO.test(value)) return value;
  return new Date(String(value)).toISOString();
}

export function toIsoOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : toIso(value);
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** SQLite has no boolean type and returns 0/1. */
export function toBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

/** bigint columns come back as strings from pg and numbers from SQLite. */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string' || text === '') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Postgres `count(*)` is a string. */
export function countOf(row: { count?: unknown } | undefined): number {
  return row ? toNumber(row.count ?? 0) : 0;
}

/** A unique-constraint violation, in either dialect: the caller lost a race to insert. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
