import type { Context } from '@temporalio/activity';

/** A node without a timeout of its own gets the definition format's default. */
export const DEFAULT_NODE_TIMEOUT_MS = 60 * 60 * 1000;

/** `90s`, `10m`, `2h`, as definitions write durations; milliseconds when not a whole second. */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}

/** Ends the activity as cancelled, with the reason Temporal gave (cancel, timeout, ...). */
export async function rethrowCancellation(context: Context): Promise<never> {
  return context.cancelled;
}
