import type { Database } from '../../db/connection.js';
import {
  claimEnvironmentForRemoval,
  isEnvironmentInUse,
  releaseEnvironmentClaim,
  type InUseOptions,
  type IsolationEnvironment,
} from '../../db/repositories/isolation-environments.js';
import { removeWorktreeLocked, withRepositoryLock } from '../worktrees/worktrees.js';

/** What happened to one environment the cleanup wanted gone. */
export type ReapOutcome = 'removed' | 'kept_dirty' | 'kept_in_use';

/**
 * Removes one environment's worktree on behalf of the cleanup, unless it came back to use since
 * the pass's snapshot: under the repository lock it re-checks its users, then claims the record
 * with a compare-and-swap on `lastActivityAt` (adoption touches it), so an environment adopted
 * or put to use meanwhile, here or in another process, is kept.
 */
export async function reapEnvironment(
  db: Database,
  environment: IsolationEnvironment,
  sourcePath: string,
  inUse: InUseOptions,
): Promise<ReapOutcome> {
  return withRepositoryLock(sourcePath, async (source) => {
    if (await isEnvironmentInUse(db.knex, environment.id, inUse)) return 'kept_in_use';
    if (!(await claimEnvironmentForRemoval(db.knex, environment))) return 'kept_in_use';
    let removed = false;
    try {
      removed = (await removeWorktreeLocked({ db, environment }, source)).removed;
    } finally {
      if (!removed) await releaseEnvironmentClaim(db.knex, environment.id);
    }
    return removed ? 'removed' : 'kept_dirty';
  });
}
