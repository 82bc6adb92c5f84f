import type { RegistrationContext } from '../codebase-registration/registration-context.js';
import { runCleanupPass, type CleanupReport } from './cleanup-pass.js';

export function createCleanupActivities(deps: RegistrationContext) {
  return {
    async runCleanupPass(): Promise<CleanupReport> {
      const { cleanup, general } = deps.environment;
      return runCleanupPass(deps, {
        staleThresholdDays: cleanup.staleThresholdDays,
        maxWorktreesPerCodebase: cleanup.maxWorktreesPerCodebase,
        sessionRetentionDays: general.sessionRetentionDays,
      });
    },
  };
}

export type CleanupActivities = ReturnType<typeof createCleanupActivities>;
