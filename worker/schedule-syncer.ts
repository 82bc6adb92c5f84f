import type { ServiceContext } from '../services/context.js';
import { scheduleClient, type ScheduleTemporalAccess } from '../services/schedules/schedule-client.js';
import { runPeriodically } from './periodic.js';

/**
 * Keeps workflow schedules in line with the workflow files, at start and then every minute: a
 * schedule added, changed or removed in a file (an edit, a pull) reaches Temporal within that.
 */
export function startScheduleSyncer(
  context: ServiceContext,
  access: ScheduleTemporalAccess,
  intervalMs = 60_000,
): { stop(): Promise<void> } {
  const schedules = scheduleClient(access);
  return runPeriodically(() => schedules.sync(context), {
    intervalMs,
    logger: context.logger,
    failureEvent: 'schedule.sync_failed',
  });
}
