import {
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { ScheduledRunInput } from '../../domain/runs/schedule-contract.js';
import { runQueueFor } from '../../domain/task-queues.js';
import { HEARTBEAT_TIMEOUT_MS } from '../../domain/heartbeats.js';
import type { ScheduleActivities } from '../../activities/schedules/schedule-activities.js';
import { startRunAsChild, stopChildRun } from '../runs/child-run.js';

/**
 * What a workflow schedule starts when it fires: the run of the workflow, stored from the
 * definition as it is now, then executed as a child workflow and awaited, so the schedule's
 * overlap policy sees a run still going. Answers the run's id, or why no run was started.
 */
export async function scheduledRun(input: ScheduledRunInput): Promise<string> {
  const activities = proxyActivities<ScheduleActivities>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
  });
  const started = await activities.startScheduledRun(input);
  if ('skipped' in started) return `no run: ${started.skipped}`;
  const child = await CancellationScope.nonCancellable(() =>
    startRunAsChild(started.runId, {
      taskQueue: runQueueFor(workflowInfo().taskQueue),
      input: { searchAttributes: input.searchAttributes },
      workflowName: input.workflowName,
      codebaseId: input.codebaseId,
    }),
  );
  try {
    await condition(child.ended);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // The schedule's overlap policy (cancel_other) makes way for a newer run.
    const reason = 'a newer run of its schedule replaced it';
    await stopChildRun(
      child,
      () => activities.cancelScheduledRun({ runId: child.runId, actor: null, reason }),
      { actor: 'cairn', reason },
    );
  }
  return started.runId;
}
