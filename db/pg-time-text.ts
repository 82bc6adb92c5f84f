import { createRequire } from 'node:module';
import type pg from 'pg';

/** Postgres' type id of `timestamp with time zone`. */
export const TIMESTAMPTZ_OID = 1184;

// How Postgres writes a timestamptz as text (DateStyle ISO): `2026-01-01 02:46:39.123+00`, the
// fraction up to microseconds and only as long as needed, the offset the session's time zone's.
const TIMESTAMPTZ_TEXT = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?([+-]\d{2})(?::(\d{2}))?$/;

/**
 * A timestamptz as the ISO text Date#toISOString writes (what the repositories return), made from
 * Postgres' own text without a Date: the pg driver's Date parsing cost more than the rest of a
 * 50-row page. Milliseconds are truncated, as the driver's parser does. Anything else (another
 * DateStyle, infinity, years BC, an offset in seconds) goes to the driver's parser, whose Date
 * the repositories turn into the same text.
 */
export function timestamptzAsIso(text: string, fallback: (text: string) => unknown): unknown {
  const match = TIMESTAMPTZ_TEXT.exec(text);
  if (!match) return fallback(text);
  const [, date, time, fraction = '', hours, minutes = '00'] = match;
  const millis = `${fraction}000`.slice(0, 3);
  if (hours === '+00' && minutes === '00') return `${date}T${time}.${millis}Z`;
  return new Date(`${date}T${time}.${millis}${hours}:${minutes}`).toISOString();
}

/** pg's type parsers, except timestamptz read as ISO text (for the hot reads' queries only). */
export function typesWithIsoTimes(): pg.CustomTypesConfig {
  // Loaded here, not at the top: on SQLite nothing loads pg.
  const { types } = createRequire(import.meta.url)('pg') as typeof pg;
  const parseTimestamptz = types.getTypeParser(TIMESTAMPTZ_OID, 'text');
  const asIso = (text: string) => timestamptzAsIso(text, parseTimestamptz);
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === TIMESTAMPTZ_OID && format !== 'binary'
        ? asIso
        : types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
}
