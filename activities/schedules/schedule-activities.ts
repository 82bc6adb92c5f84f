import type { ServiceContext } from '../../services/context.js';
import type { ScheduledRunInput } from '../../domain/runs/schedule-contract.js';
import { startScheduledRun } from '../../services/schedules/scheduled-run.js';
import { cancelChildRun } from '../../services/runs/child-runs.js';
import { withHeartbeats } from '../heartbeats.js';

/** What a fired workflow schedule does, on the core queue. */
export function createScheduleActivities(deps: ServiceContext) {
  return {
    // Bringing a cloned checkout up to date is a fetch: heartbeats show it is alive.
    startScheduledRun: (input: ScheduledRunInput) => withHeartbeats(() => startScheduledRun(deps, input)),
    cancelScheduledRun: (input: Parameters<typeof cancelChildRun>[1]) => cancelChildRun(deps, input),
  };
}

export type ScheduleActivities = ReturnType<typeof createScheduleActivities>;
