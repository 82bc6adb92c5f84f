/**
 * Usage limits as the assistants report them, with the time they reset. The forms recognised,
 * as the CLIs print them:
 *
 * - Claude, older: `Claude AI usage limit reached|1749924000` (the reset as epoch seconds).
 * - Claude: `Claude usage limit reached. Your limit will reset at 1pm (Etc/GMT+5).`,
 *   `You've hit your session limit · resets 10:30pm (Europe/Berlin)`,
 *   `Limit reached · resets 5pm (Etc/Unknown) · /upgrade ...`, `5-hour limit reached ∙ resets 3pm`
 *   (a time of day, in the named zone, else the machine's: the CLI runs on the worker's machine).
 * - Codex: `You've hit your usage limit. ... try again in 2 hours 5 minutes.` (or `in 3 days`).
 * - An HTTP 429 carrying `retry-after: <seconds>`.
 */

const EPOCH_FORM = /usage limit reached\|(\d{9,11})/i;
const LIMIT_WORDS =
  /(usage limit|session limit|weekly limit|limit reached|hit your limit|rate limit|\b429\b)/i;
const RESET_AT =
  /(?:reset at|resets(?: at)?)\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*)\))?/i;
const TRY_AGAIN_IN =
  /try again in\s+((?:\d+\s*(?:days?|hours?|hrs?|minutes?|mins?|seconds?|secs?)[\s,and]*)+)/i;
const RETRY_AFTER = /retry-after["':\s]+(\d{1,6})/i;

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** The offset of `zone` at instant `at`, in ms (wall clock read as UTC, minus the instant). */
function zoneOffsetMs(at: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return wall - Math.floor(at / 1000) * 1000;
}

function knownZone(zone: string | undefined): zone is string {
  if (!zone) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The first instant after `now` at which the wall clock in `zone` reads hour:minute. */
function nextWallTime(hour: number, minute: number, zone: string, now: number): number {
  const today = new Date(now + zoneOffsetMs(now, zone));
  for (let days = 0; days <= 2; days += 1) {
    const wall = Date.UTC(
      today.getUTCFullYear(),
      today.getUTCMonth(),
      today.getUTCDate() + days,
      hour,
      minute,
    );
    let instant = wall - zoneOffsetMs(wall, zone);
    // Across a change of offset the first guess is an hour out: correct it once.
    instant = wall - zoneOffsetMs(instant, zone);
    if (instant > now) return instant;
  }
  return now;
}

function clockReset(match: RegExpExecArray, now: number, localZone: string): number | undefined {
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  const meridiem = match[3]?.toLowerCase();
  if (minute > 59 || hour > 23 || (meridiem && (hour < 1 || hour > 12))) return undefined;
  if (meridiem === 'pm' && hour < 12) hour += 12;
  if (meridiem === 'am' && hour === 12) hour = 0;
  const zone = knownZone(match[4]) ? match[4] : localZone;
  return nextWallTime(hour, minute, zone, now);
}

function durationMs(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)\s*(d|h|m|s)[a-z]*/gi))
    total += Number(amount) * UNIT_MS[unit!.toLowerCase()]!;
  return total;
}

/**
 * When the usage limit this message reports resets, or undefined when it reports none (or no
 * time to wait for). `localZone` reads a time of day without a zone (default: this machine's).
 */
export function usageLimitReset(
  message: string,
  now: Date = new Date(),
  localZone: string = Intl.DateTimeFormat().resolvedOptions().timeZone,
): Date | undefined {
  const at = now.getTime();
  const epoch = EPOCH_FORM.exec(message);
  if (epoch) return new Date(Number(epoch[1]) * 1000);
  if (!LIMIT_WORDS.test(message)) return undefined;
  const clock = RESET_AT.exec(message);
  if (clock) {
    const reset = clockReset(clock, at, localZone);
    if (reset !== undefined) return new Date(reset);
  }
  const relative = TRY_AGAIN_IN.exec(message);
  if (relative) {
    const wait = durationMs(relative[1]!);
    if (wait > 0) return new Date(at + wait);
  }
  const retryAfter = RETRY_AFTER.exec(message);
  if (retryAfter) return new Date(at + Number(retryAfter[1]) * 1000);
  return undefined;
}

/** A usage-limit wait lasts at least this (a reset already past), and at most a week. */
export const MIN_LIMIT_WAIT_MS = 5_000;
export const MAX_LIMIT_WAIT_MS = 7 * 24 * 60 * 60_000;
/** A limit that keeps coming back after its reset: the node or turn fails after this many waits. */
export const MAX_LIMIT_WAITS = 20;

/** How long to wait for a limit resetting at `resetAt` (ISO), from `nowMs`, within the bounds. */
export function limitWaitMs(resetAt: string, nowMs: number): number {
  return Math.min(Math.max(Date.parse(resetAt) - nowMs, MIN_LIMIT_WAIT_MS), MAX_LIMIT_WAIT_MS);
}
