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
import { deleteBranch, uniqueCommitCount } from '../../infra/git/branches.js';
import { BRANCH_PREFIX } from '../worktrees/branch-names.js';
import { ServiceError } from '../service-error.js';
import { claimCodebaseDeletion, releaseCodebaseDeletion } from '../../db/repositories/codebases.js';
import { countRunningTurns, runningTurnsOfCodebase } from '../../db/repositories/messages.js';
import { turnCanceller } from '../conversations/conversation-client.js';

export interface DeletionReport {
  cancelledRuns: number;
  /** Chat turns that were running in the codebase's worktrees, cancelled before they went. */
  cancelledTurns: number;
  removedWorktrees: number;
  removedWorkspace: boolean;
  /** Branches Cairn made in the user's repository (a codebase registered by path), now deleted. */
  removedBranches: string[];
  /** Branches Cairn made that hold commits no other branch has: kept, so no work is lost. */
  keptBranches: Array<{ branch: string; uniqueCommits: number }>;
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
  /** Cancels a chat turn running in one of the codebase's worktrees. */
  cancelTurn: (conversationId: string, messageId: number) => Promise<void> = async () => undefined,
): Promise<DeletionReport> {
  const { knex } = context.db;
  const cancelledTurns = await cancelRunningTurns(context, codebase.id, cancelTurn);
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
  const branches = codebase.localPath
    ? await cleanUpBranches(codebase.sourcePath, await listEnvironments(knex, codebase.id), context.logger)
    : { removedBranches: [], keptBranches: [] };
  await deleteCodebaseRow(knex, codebase.id);
  // This process's listings stop allowing its checkout now, not when the change notice is back.
  context.db.codebasePaths?.invalidate();
  const removedWorkspace = removeWorkspace(workspaceAt(dirname(codebase.sourcePath)), context.workspacesRoot);
  context.logger.info(
    {
      event: 'codebase.deleted',
      codebaseId: codebase.id,
      actor,
      cancelledRuns,
      removedWorktrees,
      removedWorkspace,
      ...branches,
    },
    'codebase deleted',
  );
  return { cancelledRuns, cancelledTurns, removedWorktrees, removedWorkspace, failedWorktrees, ...branches };
}

/** How long a deletion waits for cancelled turns to stop before it removes their folders. */
const TURN_STOP_WAIT_MS = 20_000;

/**
 * Cancels the chat turns running in the codebase's worktrees and waits (a while) for them to
 * end, so no assistant keeps working in a folder that is about to be removed. Each ends
 * `cancelled`, with its event on the conversation's stream.
 */
async function cancelRunningTurns(
  context: { db: Database; logger: Logger },
  codebaseId: string,
  cancelTurn: (conversationId: string, messageId: number) => Promise<void>,
): Promise<number> {
  const turns = await runningTurnsOfCodebase(context.db.knex, codebaseId);
  for (const turn of turns) {
    await cancelTurn(turn.conversationId, turn.messageId).catch((error: unknown) =>
      context.logger.warn({ event: 'codebase.turn_cancel_failed', ...turn, err: (error as Error).message }),
    );
  }
  const ids = turns.map((turn) => turn.messageId);
  const deadline = Date.now() + TURN_STOP_WAIT_MS;
  while ((await countRunningTurns(context.db.knex, ids)) > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return turns.length;
}

/**
 * The branches Cairn's worktrees made in a repository that stays (the user's own checkout): each
 * goes, unless it holds commits found on no other branch, remote branch or tag.
 */
async function cleanUpBranches(
  repoPath: string,
  environments: Array<{ branch: string }>,
  logger: Logger,
): Promise<Pick<DeletionReport, 'removedBranches' | 'keptBranches'>> {
  const removedBranches: string[] = [];
  const keptBranches: DeletionReport['keptBranches'] = [];
  const ours = [...new Set(environments.map((environment) => environment.branch))].filter((branch) =>
    branch.startsWith(BRANCH_PREFIX),
  );
  for (const branch of ours.sort()) {
    try {
      const uniqueCommits = await uniqueCommitCount(repoPath, branch);
      if (uniqueCommits === undefined) continue;
      if (uniqueCommits > 0) {
        keptBranches.push({ branch, uniqueCommits });
        continue;
      }
      await deleteBranch(repoPath, branch);
      removedBranches.push(branch);
    } catch (error) {
      // The user's repository may have moved or broken; its branches are then left as they are.
      logger.warn({ event: 'codebase.branch_cleanup_failed', branch, err: (error as Error).message });
    }
  }
  return { removedBranches, keptBranches };
}

/** After this long, a deletion whose process died may be claimed again. */
const DELETION_LEASE_MS = 10 * 60_000;

/** DELETE of a codebase by id: its runs in progress are cancelled, their executions told to stop. */
export async function deleteCodebaseById(
  context: ServiceContext,
  temporal: RunTemporalAccess,
  id: string,
  actor: string,
): Promise<DeletionReport & { id: string }> {
  const codebase = await existingCodebase(context, id);
  // Two DELETEs at once: one deletes, the other finds nothing to delete.
  const now = Date.now();
  const claimed = await claimCodebaseDeletion(
    context.db.knex,
    id,
    new Date(now).toISOString(),
    new Date(now - DELETION_LEASE_MS).toISOString(),
  );
  if (!claimed) throw ServiceError.notFound(`No codebase with id ${id} (it is being deleted).`);
  const runs = runClient(temporal);
  try {
    const report = await deleteCodebase(
      context,
      codebase,
      actor,
      (runId) => runs.cancel(runId, actor),
      turnCanceller(temporal.client),
    );
    return { id: codebase.id, ...report };
  } catch (error) {
    await releaseCodebaseDeletion(context.db.knex, id).catch(() => undefined);
    throw error;
  }
}
