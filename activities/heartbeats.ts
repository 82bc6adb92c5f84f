import { Context } from '@temporalio/activity';
import { HEARTBEAT_TIMEOUT_MS } from '../domain/heartbeats.js';

/**
 * How often an activity tells Temporal it is alive: a third of its heartbeat timeout, and at most
 * every 10 s, so a dead worker's attempt is retried within about the timeout (AMENDMENTS B "13").
 */
export function heartbeatEvery(timeoutMs: number | undefined): number {
  return Math.max(1_000, Math.min(10_000, Math.floor((timeoutMs ?? HEARTBEAT_TIMEOUT_MS) / 3)));
}

/**
 * Heartbeats on a timer while the activity works, however quiet it is (a long tool call, a slow
 * clone): only a dead worker stops them. `everyMs` is for activities a user may cancel, which
 * learn of it from a heartbeat's answer. Returns the function that stops them.
 */
export function keepHeartbeating(context: Context = Context.current(), everyMs?: number): () => void {
  const period = everyMs ?? heartbeatEvery(context.info.heartbeatTimeoutMs);
  const timer = setInterval(() => context.heartbeat(), period);
  return () => clearInterval(timer);
}

/** Runs `work` in the current activity with keepHeartbeating around it. */
export async function withHeartbeats<T>(work: () => Promise<T>): Promise<T> {
  const stop = keepHeartbeating();
  try {
    return await work();
  } finally {
    stop();
  }
}

/** How often a turn heartbeats: a cancel reaches it in one answer, so about this long. */
export const CANCELLABLE_HEARTBEAT_MS = 2_000;
