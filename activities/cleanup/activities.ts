import { Context } from '@temporalio/activity';
import type { ServiceContext } from '../../services/context.js';
import { runCleanupPass, type CleanupReport } from '../../services/cleanup/cleanup-pass.js';
import { reconcileRuns, type Repair } from '../../services/runs/reconcile-runs.js';
import { searchAttributesRegistered } from '../../infra/temporal/search-attributes.js';
import { withHeartbeats } from '../heartbeats.js';

export function createCleanupActivities(deps: ServiceContext) {
  return {
    async runCleanupPass(): Promise<CleanupReport> {
      const { cleanup, general } = deps.environment;
      // Heartbeats let Temporal notice a dead worker in seconds, not after the whole timeout.
      return withHeartbeats(() =>
        runCleanupPass(deps, {
          staleThresholdDays: cleanup.staleThresholdDays,
          maxWorktreesPerCodebase: cleanup.maxWorktreesPerCodebase,
          sessionRetentionDays: general.sessionRetentionDays,
        }),
      );
    },

    /** The cleanup schedule's share of run reconciliation (the worker also reconciles every minute). */
    async reconcileRunsNow(): Promise<Repair[]> {
      const activity = Context.current();
      const { client } = activity;
      return reconcileRuns({
        client,
        searchAttributes: await searchAttributesRegistered(
          client.connection,
          activity.info.activityNamespace,
        ),
        // Cleanup runs on the core queue, where run workflows run too.
        taskQueue: activity.info.taskQueue,
        db: deps.db,
        logger: deps.logger,
      });
    },
  };
}

export type CleanupActivities = ReturnType<typeof createCleanupActivities>;
