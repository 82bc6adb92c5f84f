// Whether a running run has gone quiet for longer than its nodes' timeouts allow: the engine
// records an event when a node ends, fails on its timeout or retries, so a longer silence means
// something stalled (a worker gone, Temporal unreachable). Pure (unit-tested).
import type { NodeTimeLimit, RunStatus } from '../api/types.js';

/** What the engine itself allows past a node's timeout for its activity to stop and report. */
export const REPORT_GRACE_MS = 60_000;

/** The longest a node may run without an event: its timeout, a pause between tries, the grace; null when unbounded. */
export function quietAllowanceMs(limit: NodeTimeLimit): number | null {
  return limit.timeoutMs === null ? null : limit.timeoutMs + limit.retryDelayMs + REPORT_GRACE_MS;
}

export interface StalenessInput {
  now: number;
  status: RunStatus;
  /** Set while a node waits out the assistant's usage limit: a wait, not a stall. */
  waitingUntil: string | null;
  /** The time of the run's latest event; null when none is known. */
  lastEventAt: string | null;
  /** The limits of the nodes that may be running now (all the run's nodes when that is not known). */
  limits: readonly NodeTimeLimit[];
}

export type Staleness = { stale: false } | { stale: true; quietMs: number; allowedMs: number };

const FRESH: Staleness = { stale: false };

/**
 * A run is stale when it is running (not waiting, paused or ended), and no event has come for
 * longer than the most generous of the given nodes' allowances. Without limits, or with a node
 * that may wait for ever, nothing is claimed: no false alarm.
 */
export function staleness(input: StalenessInput): Staleness {
  if (input.status !== 'running' || input.waitingUntil !== null || input.lastEventAt === null) return FRESH;
  if (input.limits.length === 0) return FRESH;
  let allowedMs = 0;
  for (const limit of input.limits) {
    const allowance = quietAllowanceMs(limit);
    if (allowance === null) return FRESH;
    allowedMs = Math.max(allowedMs, allowance);
  }
  const last = Date.parse(input.lastEventAt);
  if (Number.isNaN(last)) return FRESH;
  const quietMs = input.now - last;
  return quietMs > allowedMs ? { stale: true, quietMs, allowedMs } : FRESH;
}
