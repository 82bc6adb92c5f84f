import { existsSync } from 'node:fs';
import { findEnvironment, type IsolationEnvironment } from '../../db/repositories/isolation-environments.js';
import { findRun, type WorkflowRun } from '../../db/repositories/workflow-runs.js';
import { baseBranchRef, worktreeDiff, type WorktreeDiff } from '../../infra/git/worktree-diff.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { requireRun } from './run-reads.js';

/** A patch larger than this is cut (the file list stays whole up to MAX_FILES). */
export const MAX_PATCH_BYTES = 1024 * 1024;
export const MAX_FILES = 3000;

export interface RunDiff extends WorktreeDiff {
  runId: string;
  baseBranch: string;
}

/** Sub-workflow runs work in the folder of the run that started them: the first ancestor with a worktree. */
async function worktreeRun(context: ServiceContext, run: WorkflowRun): Promise<WorkflowRun> {
  let current = run;
  for (let depth = 0; !current.isolationEnvironmentId && current.parentRunId && depth < 20; depth++) {
    const parent = await findRun(context.db.reader, current.parentRunId);
    if (!parent) break;
    current = parent;
  }
  return current;
}

const noWorktree = (run: WorkflowRun, detail: string) =>
  new ServiceError({
    kind: 'conflict',
    code: 'run_has_no_worktree',
    detail: `Run ${run.id} has no worktree to compare: ${detail}`,
    extra: { currentState: run.status },
  });

async function liveEnvironment(context: ServiceContext, run: WorkflowRun): Promise<IsolationEnvironment> {
  const owner = await worktreeRun(context, run);
  if (!owner.isolationEnvironmentId) {
    throw noWorktree(
      run,
      run.status === 'pending'
        ? 'it has not started yet.'
        : 'it worked in the codebase’s own checkout (isolation: none) or without a codebase.',
    );
  }
  const environment = await findEnvironment(context.db.knex, owner.isolationEnvironmentId);
  if (!environment || environment.status !== 'active' || !existsSync(environment.path)) {
    throw new ServiceError({
      kind: 'conflict',
      code: 'worktree_removed',
      detail: `The worktree of run ${run.id} was removed (cleaned up), so its changes can no longer be shown.`,
      extra: { currentState: run.status },
    });
  }
  return environment;
}

/**
 * What a run changed in its worktree, against the branch the worktree started from: its
 * commits, its uncommitted changes and its new files, from the merge-base with that branch.
 */
export async function getRunDiff(context: ServiceContext, runId: string): Promise<RunDiff> {
  const run = await requireRun(context, runId);
  const environment = await liveEnvironment(context, run);
  const baseBranch = environment.baseBranch;
  if (!baseBranch)
    throw noWorktree(
      run,
      'its worktree started from the checkout’s commit, with no base branch to compare to.',
    );
  const ref = await baseBranchRef(environment.path, baseBranch);
  if (!ref)
    throw new ServiceError({
      kind: 'conflict',
      code: 'base_branch_missing',
      detail: `The base branch ${baseBranch} of run ${run.id} no longer exists in the repository.`,
    });
  const diff = await worktreeDiff(environment.path, ref, {
    maxPatchBytes: MAX_PATCH_BYTES,
    maxFiles: MAX_FILES,
  });
  return { runId: run.id, baseBranch, ...diff };
}
