import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

/** One schedule per task queue family; production has exactly one. */
export function cleanupScheduleId(taskQueue: string): string {
  return `cairn-cleanup-${taskQueue}`;
}

/**
 * Creates the cleanup Schedule, or updates its interval when CLEANUP_INTERVAL_HOURS changed.
 * A Temporal Schedule rather than a timer in a process: it shows in the Web UI, survives
 * restarts, and fires once however many workers run.
 */
export async function ensureCleanupSchedule(
  client: Client,
  options: { taskQueue: string; intervalHours: number },
): Promise<string> {
  const scheduleId = cleanupScheduleId(options.taskQueue);
  const spec = { intervals: [{ every: `${options.intervalHours} hours` as const }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'cleanupPass',
    taskQueue: options.taskQueue,
    workflowId: `cleanup-${options.taskQueue}`,
    args: [],
  };
  try {
    await client.schedule.create({
      scheduleId,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
  }
  return scheduleId;
}
