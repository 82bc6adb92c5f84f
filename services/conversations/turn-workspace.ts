import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CairnConfig } from '../../config/config-types.js';
import { attachEnvironment, type Conversation } from '../../db/repositories/conversations.js';
import { findCodebase, type Codebase } from '../../db/repositories/codebases.js';
import { assertNoEnvLeak } from '../codebases/check-before-spawn.js';
import { gitCredentialsFor } from '../../infra/git/credentials.js';
import { ensureWorktree } from '../worktrees/worktrees.js';
import { worktreesRootFor } from '../codebases/workspace.js';
import type { ServiceContext } from '../context.js';

export interface TurnWorkspace {
  /** Where the assistant runs. */
  cwd: string;
  codebase?: Codebase;
  /** Global config, layered with the repository's when the conversation has a codebase. */
  config: CairnConfig;
}

/** A conversation without a codebase still needs a folder of its own to run in. */
function scratchFolder(home: string, conversationId: string): string {
  const dir = join(home, 'conversations', conversationId);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The folder a conversation's turn runs in: its own worktree (`cairn/thread-<hash>`) when it has
 * a codebase, created on the first turn and adopted after. The env-leak gate runs here, right
 * before every spawn, with the codebase's consent.
 */
export async function prepareTurnWorkspace(
  deps: ServiceContext,
  conversation: Conversation,
  signal: AbortSignal,
): Promise<TurnWorkspace> {
  const { db, home, logger, environment } = deps;
  const codebase = conversation.codebaseId ? await findCodebase(db.knex, conversation.codebaseId) : undefined;
  if (!codebase) {
    return { cwd: scratchFolder(home, conversation.id), config: deps.config.global() };
  }
  const config = deps.config.forRepository(codebase.sourcePath);
  const { environment: worktree } = await ensureWorktree({
    db,
    codebaseId: codebase.id,
    sourcePath: codebase.sourcePath,
    worktreesRoot: worktreesRootFor(codebase.sourcePath, config.effective.paths.worktrees),
    kind: 'thread',
    key: conversation.id,
    configuredBaseBranch: config.effective.worktree.baseBranch,
    copyFiles: config.effective.worktree.copyFiles,
    credentials: codebase.url ? gitCredentialsFor(codebase.url, environment) : undefined,
    logger,
    signal,
  });
  if (conversation.isolationEnvironmentId !== worktree.id) {
    await attachEnvironment(db.knex, conversation.id, worktree);
  }
  await assertNoEnvLeak({ dir: worktree.path, consent: codebase.allowEnvKeys, config, logger });
  return { cwd: worktree.path, codebase, config };
}
