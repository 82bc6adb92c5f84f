import { log, patched, proxyActivities } from '@temporalio/workflow';
import { HEARTBEAT_TIMEOUT_MS } from '../../domain/heartbeats.js';
import type { CleanupActivities } from '../../activities/cleanup/activities.js';
import type { CleanupReport } from '../../services/cleanup/cleanup-pass.js';
import type { Repair } from '../../services/runs/reconcile-runs.js';

export interface CleanupPassResult extends CleanupReport {
  /** What the pass's run reconciliation repaired (absent in passes from before it existed). */
  reconciledRuns?: Repair[];
}

/**
 * One pass of the periodic cleanup; the cleanup Schedule starts it every CLEANUP_INTERVAL_HOURS.
 * After the worktrees and sessions, it reconciles runs with their Temporal executions.
 */
export async function cleanupPass(): Promise<CleanupPassResult> {
  const { runCleanupPass } = proxyActivities<CleanupActivities>({
    startToCloseTimeout: '1 hour',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { maximumAttempts: 3, initialInterval: '30 seconds' },
  });
  const { reconcileRunsNow } = proxyActivities<CleanupActivities>({
    startToCloseTimeout: '15 minutes',
    retry: { maximumAttempts: 3, initialInterval: '30 seconds' },
  });
  const report = await runCleanupPass();
  // Passes recorded before this step existed replay without it.
  if (!patched('cleanup-reconciles-runs')) return report;
  try {
    return { ...report, reconciledRuns: await reconcileRunsNow() };
  } catch (error) {
    // The cleanup itself is done; the worker's own reconciler tries again within a minute.
    log.warn('run reconciliation failed in the cleanup pass', { error: String(error) });
    return report;
  }
}
