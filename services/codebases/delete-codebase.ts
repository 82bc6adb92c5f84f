import { dirname } from 'node:path';
import type { Database } from '../../db/connection.js';
import type { Logger } from '../../config/logger.js';
import { deleteCodebase as deleteCodebaseRow, type Codebase } from '../../db/repositories/codebases.js';
import { listEnvironments } from '../../db/repositories/isolation-environments.js';
import { findRun, listRunIdsOfCodebase } from '../../db/repositories/workflow-runs.js';
import { transitionWithEvent } from '../runs/run-state.js';
import { removeWorktree } from '../worktrees/worktrees.js';
import { removeWorkspace, workspaceAt } from './workspace.js';
import { runClient, type RunTemporalAccess } from '../runs/run-client.js';
import type { ServiceContext } from '../context.js';
import { statusChange } from '../../domain/runs/run-state-machine.js';
import { existingCodebase } from './codebase-queries.js';

export interface DeletionReport {
  cancelledRuns: number;
  removedWorktrees: number;
  removedWorkspace: boolean;
  /** Worktrees git could not remove; their records are marked destroyed all the same. */
  failedWorktrees: Array<{ environmentId: string; error: string }>;
}

/** The runs a codebase's deletion cancels, and what they become: the run state machine says. */
const CANCELLATION = statusChange('codebase_deleted');

/**
 * Deletes a codebase: cancels its runs in progress, removes its worktrees (dirty ones too: the
 * user asked to delete the codebase), deletes the record and the managed workspace folder. A
 * codebase registered by path keeps the user's checkout: only the link to it goes.
 */
export async function deleteCodebase(
  context: { db: Database; logger: Logger; workspacesRoot: string },
  codebase: Codebase,
  actor: string,
  /** Tells a cancelled run's execution to stop (its worktree is about to go). */
  stopRun: (runId: string) => Promise<void> = async () => undefined,
): Promise<DeletionReport> {
  const { knex } = context.db;
  let cancelledRuns = 0;
  for (const runId of await listRunIdsOfCodebase(knex, codebase.id, CANCELLATION.from)) {
    const run = await findRun(knex, runId);
    const cancelled = await transitionWithEvent(
      knex,
      { runId, conversationId: run?.conversationId ?? null },
      { ...CANCELLATION, error: `codebase deleted by ${actor}` },
      { type: 'run_cancelled', actor, payload: { reason: 'its codebase was deleted' } },
    );
    if (!cancelled) continue;
    cancelledRuns += 1;
    await stopRun(runId).catch((error: unknown) =>
      context.logger.warn({ event: 'codebase.run_stop_failed', runId, err: (error as Error).message }),
    );
  }
  let removedWorktrees = 0;
  const failedWorktrees: DeletionReport['failedWorktrees'] = [];
  for (const environment of await listEnvironments(knex, codebase.id)) {
    if (environment.status !== 'active') continue;
    try {
      const result = await removeWorktree({
        db: context.db,
        environment,
        sourcePath: codebase.sourcePath,
        force: true,
      });
      if (result.removed) removedWorktrees += 1;
    } catch (error) {
      // One stubborn worktree must not leave the codebase half deleted.
      failedWorktrees.push({ environmentId: environment.id, error: (error as Error).message });
    }
  }
  await deleteCodebaseRow(knex, codebase.id);
  const removedWorkspace = removeWorkspace(workspaceAt(dirname(codebase.sourcePath)), context.workspacesRoot);
  context.logger.info(
    {
      event: 'codebase.deleted',
      codebaseId: codebase.id,
      actor,
      cancelledRuns,
      removedWorktrees,
      removedWorkspace,
    },
    'codebase deleted',
  );
  return { cancelledRuns, removedWorktrees, removedWorkspace, failedWorktrees };
}

/** DELETE of a codebase by id: its runs in progress are cancelled, their executions told to stop. */
export async function deleteCodebaseById(
  context: ServiceContext,
  temporal: RunTemporalAccess,
  id: string,
  actor: string,
): Promise<DeletionReport & { id: string }> {
  const codebase = await existingCodebase(context, id);
  const runs = runClient(temporal);
  const report = await deleteCodebase(context, codebase, actor, (runId) => runs.cancel(runId, actor));
  return { id: codebase.id, ...report };
}
