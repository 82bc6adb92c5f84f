import { Context } from '@temporalio/activity';
import type { RegistrationContext } from '../codebase-registration/registration-context.js';
import { runCleanupPass, type CleanupReport } from './cleanup-pass.js';

export function createCleanupActivities(deps: RegistrationContext) {
  return {
    async runCleanupPass(): Promise<CleanupReport> {
      const { cleanup, general } = deps.environment;
      // Heartbeats let Temporal notice a dead worker in minutes, not after the whole timeout.
      const activity = Context.current();
      const ticker = setInterval(() => activity.heartbeat(), 10_000);
      try {
        return await runCleanupPass(deps, {
          staleThresholdDays: cleanup.staleThresholdDays,
          maxWorktreesPerCodebase: cleanup.maxWorktreesPerCodebase,
          sessionRetentionDays: general.sessionRetentionDays,
        });
      } finally {
        clearInterval(ticker);
      }
    },
  };
}

export type CleanupActivities = ReturnType<typeof createCleanupActivities>;
