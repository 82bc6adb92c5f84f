/**
 * A workflow's `schedule`: when Cairn starts a run of it by itself (a Temporal Schedule per
 * codebase), with what message, and what happens when a run is still going or a time was missed.
 */
import { checkDuration, type DurationBounds } from './durations.js';
import { checkKeys, describeType, field, has, isMapping, quote, type ErrorList } from './checks.js';
import { nonBlankString, oneOf } from './validate-fields.js';
import { SCHEDULE_OVERLAPS, type WorkflowSchedule } from './types.js';

const SCHEDULE_KEYS = ['cron', 'message', 'codebase', 'timezone', 'overlap', 'catchup_window'] as const;
/** `catchup_window`: a time missed while Cairn was down still fires within this (1m to 7 days). */
const CATCHUP_BOUNDS: DurationBounds = { minMs: 60_000, maxMs: 7 * 24 * 3_600_000 };
const DEFAULT_CATCHUP_MS = 3_600_000;
const MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 7, names: DAYS },
] as const;

type CronField = (typeof FIELDS)[number];

function valueOf(text: string, spec: CronField): number | undefined {
  const named = 'names' in spec ? (spec.names as readonly string[]).indexOf(text.toUpperCase()) : -1;
  if (named >= 0) return spec.name === 'month' ? named + 1 : named;
  if (!/^[0-9]{1,2}$/.test(text)) return undefined;
  const number = Number(text);
  return number >= spec.min && number <= spec.max ? number : undefined;
}

/** Why one field of a cron expression is wrong, if it is. */
function fieldProblem(text: string, spec: CronField): string | undefined {
  for (const part of text.split(',')) {
    const [range, step, ...rest] = part.split('/');
    if (rest.length > 0 || range === undefined || range === '')
      return `${spec.name} "${text}" is not a cron field`;
    if (step !== undefined && !/^[1-9][0-9]{0,1}$/.test(step))
      return `${spec.name} "${text}" has a step that is not a number from 1`;
    if (range === '*') continue;
    const [from, to, ...more] = range.split('-');
    const start = valueOf(from!, spec);
    const end = to === undefined ? start : valueOf(to, spec);
    if (more.length > 0 || start === undefined || end === undefined)
      return `${spec.name} "${text}" must be *, or values from ${spec.min} to ${spec.max}${'names' in spec ? ' (or names)' : ''}, ranges a-b, lists a,b and steps /n`;
    if (end < start) return `${spec.name} "${text}" has a range that runs backwards`;
  }
  return undefined;
}

/** Why a cron expression is not one Cairn takes, if it is not: five fields, or a macro like `@daily`. */
export function cronProblem(cron: string): string | undefined {
  const text = cron.trim();
  if (text.startsWith('@'))
    return MACROS.includes(text) ? undefined : `${quote(text)} is not one of ${MACROS.join(', ')}`;
  const fields = text.split(/\s+/);
  if (fields.length !== 5)
    return `${quote(text)} must have five fields (minute hour day-of-month month day-of-week), not ${fields.length}`;
  for (const [index, spec] of FIELDS.entries()) {
    const problem = fieldProblem(fields[index]!, spec);
    if (problem) return problem;
  }
  return undefined;
}

function timezoneProblem(name: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return undefined;
  } catch {
    return `${quote(name)} is not an IANA time zone, such as "Europe/Berlin" or "UTC"`;
  }
}

/** Checks `schedule`; answers it normalized (defaults applied) when it has no error. */
export function checkSchedule(value: unknown, errors: ErrorList): WorkflowSchedule | undefined {
  if (!isMapping(value)) {
    errors.add(
      `schedule: must be a mapping with a cron, such as {cron: "0 3 * * *"}, not ${describeType(value)}`,
    );
    return undefined;
  }
  const before = errors.count;
  checkKeys(value, SCHEDULE_KEYS, 'schedule: ', errors);
  const text = (key: string) =>
    has(value, key) ? nonBlankString(field(value, key), `schedule.${key}: `, errors) : undefined;
  const cron = text('cron');
  if (!has(value, 'cron')) errors.add('schedule.cron: required, such as "0 3 * * *" (every day at 03:00)');
  else if (cron !== undefined) {
    const problem = cronProblem(cron);
    if (problem) errors.add(`schedule.cron: ${problem}`);
  }
  const timezone = text('timezone');
  if (timezone !== undefined) {
    const problem = timezoneProblem(timezone);
    if (problem) errors.add(`schedule.timezone: ${problem}`);
  }
  const overlap = has(value, 'overlap')
    ? oneOf(field(value, 'overlap'), SCHEDULE_OVERLAPS, 'schedule.overlap: ', errors)
    : 'skip';
  let catchupWindowMs = DEFAULT_CATCHUP_MS;
  if (has(value, 'catchup_window')) {
    const window = checkDuration(field(value, 'catchup_window'), CATCHUP_BOUNDS);
    if (window.ok) catchupWindowMs = window.ms;
    else errors.add(`schedule.catchup_window: ${window.message}`);
  }
  const message = text('message');
  const codebase = text('codebase');
  if (errors.count !== before || cron === undefined || overlap === undefined) return undefined;
  return {
    cron: cron.trim(),
    message: message ?? '',
    overlap,
    catchupWindowMs,
    ...(codebase !== undefined && { codebase }),
    ...(timezone !== undefined && { timezone }),
  };
}
