import { createHash } from 'node:crypto';
import { HttpProblem } from './problem.js';
import { type TOptional, type TSchema } from '@sinclair/typebox';
import { StrictObject, Type } from './schema.js';

/**
 * Opaque keyset cursors: base64url of `{"v":1,"k":[...keys],"h":"<check>"}`. The check is a short
 * hash of the keys, so an edited cursor is refused as malformed rather than silently paging from
 * somewhere else. It is not a secret: cursors grant nothing the list does not already show.
 */

const VERSION = 1;
const MAX_CURSOR_LENGTH = 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export type CursorValue = string | number;
/** `date-time`: an ISO instant as toISOString writes it, so a forged cursor never reaches a timestamp column. */
export type CursorShape = ReadonlyArray<'string' | 'number' | 'date-time'>;

function isIsoInstant(value: string): boolean {
  const time = Date.parse(value);
  return !Number.isNaN(time) && new Date(time).toISOString() === value;
}

function check(keys: readonly CursorValue[]): string {
  return createHash('sha256')
    .update(`cairn-cursor:${JSON.stringify(keys)}`)
    .digest('base64url')
    .slice(0, 12);
}

export function encodeCursor(values: readonly CursorValue[]): string {
  for (const value of values) {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new Error('cursor numbers must be finite');
  }
  const payload = { v: VERSION, k: values, h: check(values) };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

function invalid(field: string, reason: string): HttpProblem {
  return new HttpProblem({
    status: 400,
    code: 'invalid_cursor',
    detail: `The ${field} cursor is not valid; start again from the first page.`,
    errors: [{ path: `/query/${field}`, message: reason }],
  });
}

function parse(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Decodes a cursor made by encodeCursor into values of the given shape; anything else (garbage,
 * another version, edited keys, wrong types) is a 400 `invalid_cursor` naming the query field.
 */
export function decodeCursor(cursor: string, shape: CursorShape, field = 'cursor'): CursorValue[] {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) {
    throw invalid(field, 'is not a cursor');
  }
  const payload = parse(cursor) as { v?: unknown; k?: unknown; h?: unknown } | undefined;
  if (typeof payload !== 'object' || payload === null || payload.v !== VERSION || !Array.isArray(payload.k)) {
    throw invalid(field, 'is not a cursor');
  }
  const keys = payload.k as unknown[];
  const typed = keys.every(
    (key, index) =>
      (shape[index] === 'string' && typeof key === 'string') ||
      (shape[index] === 'date-time' && typeof key === 'string' && isIsoInstant(key)) ||
      (shape[index] === 'number' && typeof key === 'number' && Number.isFinite(key)),
  );
  if (keys.length !== shape.length || !typed) throw invalid(field, 'does not belong to this list');
  if (payload.h !== check(keys as CursorValue[])) throw invalid(field, 'has been altered');
  return keys as CursorValue[];
}

export interface PageLimitOptions {
  default: number;
  max: number;
}

/** The page size to use: the default when absent, clamped to 1..max otherwise. */
export function pageLimit(limit: number | undefined, options: PageLimitOptions): number {
  if (limit === undefined || !Number.isFinite(limit)) return options.default;
  return Math.min(Math.max(Math.trunc(limit), 1), options.max);
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * Turns `limit + 1` fetched rows into a page: the extra row only says that another page exists,
 * and the cursor points after the last row returned.
 */
export function page<T>(
  rows: readonly T[],
  limit: number,
  keyOf: (row: T) => readonly CursorValue[],
): Page<T> {
  if (rows.length <= limit) return { items: [...rows] };
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return last === undefined ? { items } : { items, nextCursor: encodeCursor(keyOf(last)) };
}

/**
 * Query schema properties for a paged list, so every list describes `limit` and the cursor alike;
 * spread them into the list's query object. The cursor field is `cursor` unless named.
 */
export function pageQueryProperties<Field extends string = 'cursor'>(
  options: PageLimitOptions & { cursorField?: Field },
) {
  const cursor = Type.String({
    maxLength: MAX_CURSOR_LENGTH,
    description: 'Opaque cursor from the previous page (nextCursor).',
  });
  return {
    limit: Type.Integer({
      minimum: 1,
      maximum: options.max,
      default: options.default,
      description: 'Page size.',
    }),
    ...({ [options.cursorField ?? 'cursor']: Type.Optional(cursor) } as {
      [K in Field]: TOptional<typeof cursor>;
    }),
  };
}

/** Response schema of a page of `item`. */
export function pageSchema<T extends TSchema>(item: T) {
  return StrictObject({
    items: Type.Array(item),
    nextCursor: Type.Optional(Type.String({ description: 'Present when another page follows.' })),
  });
}
