import type { Context } from '@temporalio/activity';

/** A node without a timeout of its own gets the definition format's default. */
export const DEFAULT_NODE_TIMEOUT_MS = 60 * 60 * 1000;

/** Keeps Temporal informed while a node is quiet, so only a dead worker times out. */
export function keepHeartbeating(context: Context): () => void {
  const every = Math.max(1_000, Math.floor((context.info.heartbeatTimeoutMs ?? 60_000) / 3));
  const timer = setInterval(() => context.heartbeat(), every);
  return () => clearInterval(timer);
}

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
