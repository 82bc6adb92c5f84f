import { proxyActivities } from '@temporalio/workflow';
import type { CleanupActivities } from '../../activities/cleanup/activities.js';
import type { CleanupReport } from '../../activities/cleanup/cleanup-pass.js';

/** One pass of the periodic cleanup; the cleanup Schedule starts it every CLEANUP_INTERVAL_HOURS. */
export async function cleanupPass(): Promise<CleanupReport> {
  const { runCleanupPass } = proxyActivities<CleanupActivities>({
    startToCloseTimeout: '1 hour',
    heartbeatTimeout: '2 minutes',
    retry: { maximumAttempts: 3, initialInterval: '30 seconds' },
  });
  return runCleanupPass();
}
