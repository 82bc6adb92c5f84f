/**
 * Durations as workflow definitions write them: a whole number and a unit, `s`, `m` or `h`
 * (`90s`, `10m`, `2h`).
 */

const DURATION = /^(0|[1-9][0-9]{0,8})(s|m|h)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

export interface DurationBounds {
  minMs: number;
  maxMs: number;
}

/** `retry.delay`: 0s to 10m. */
export const RETRY_DELAY_BOUNDS: DurationBounds = { minMs: 0, maxMs: 10 * 60_000 };
/** `timeout`: 1s to 24h. */
export const TIMEOUT_BOUNDS: DurationBounds = { minMs: 1000, maxMs: 24 * 3_600_000 };

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** The shortest exact text for a number of milliseconds: `600000` → `10m`. */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

export type DurationCheck = { ok: true; ms: number } | { ok: false; message: string };

/**
 * Checks a YAML value: a duration string within the bounds; with `numbersAreMs`, a whole number
 * of milliseconds too (Archon's `timeout: 600000`).
 */
export function checkDuration(value: unknown, bounds: DurationBounds, numbersAreMs = false): DurationCheck {
  const ms =
    typeof value === 'string'
      ? parseDuration(value)
      : numbersAreMs && typeof value === 'number' && Number.isInteger(value)
        ? value
        : undefined;
  if (ms === undefined) {
    const numbers = numbersAreMs ? ', or a whole number of milliseconds' : '';
    return {
      ok: false,
      message: `must be a duration: a whole number and s, m or h, such as 90s, 10m or 2h${numbers}`,
    };
  }
  if (ms < bounds.minMs || ms > bounds.maxMs) {
    return {
      ok: false,
      message: `must be between ${formatDuration(bounds.minMs)} and ${formatDuration(bounds.maxMs)}`,
    };
  }
  return { ok: true, ms };
}
