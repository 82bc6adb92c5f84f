import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CairnConfig } from '../../config/config-types.js';
import { attachEnvironment, type Conversation } from '../../db/repositories/conversations.js';
import { findEnvironment, type IsolationEnvironment } from '../../db/repositories/isolation-environments.js';
import { findCodebase, type Codebase } from '../../db/repositories/codebases.js';
import { assertNoEnvLeak } from '../codebases/check-before-spawn.js';
import { withoutRepositorySecrets } from '../codebases/untrusted-code.js';
import { gitCredentialsForUrl } from '../../infra/git/credentials.js';
import { ensureWorktree } from '../worktrees/worktrees.js';
import { worktreesRootFor } from '../codebases/workspace.js';
import type { ServiceContext } from '../context.js';

export interface TurnWorkspace {
  /** Where the assistant runs. */
  cwd: string;
  codebase?: Codebase;
  /** Global config, layered with the repository's when the conversation has a codebase. */
  config: CairnConfig;
  /** The folder holds a fork's code: the assistant gets no secrets at all, code-host tokens included. */
  untrusted: boolean;
}

/** A conversation without a codebase still needs a folder of its own to run in. */
function scratchFolder(home: string, conversationId: string): string {
  const dir = join(home, 'conversations', conversationId);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The worktree a conversation was given outside its turns (a pull request's head, by the code-host
 * door), when it is still active and of the conversation's codebase.
 */
async function givenPullRequestWorktree(
  deps: ServiceContext,
  conversation: Conversation,
  codebaseId: string,
): Promise<IsolationEnvironment | undefined> {
  if (!conversation.isolationEnvironmentId) return undefined;
  const given = await findEnvironment(deps.db.knex, conversation.isolationEnvironmentId);
  return given && given.kind === 'pr' && given.status === 'active' && given.codebaseId === codebaseId
    ? given
    : undefined;
}

/**
 * The folder a conversation's turn runs in: its own worktree (`cairn/thread-<hash>`) when it has
 * a codebase, created on the first turn and adopted after; a pull request's thread works in the
 * pull request's worktree (`cairn/pr-<n>`). The env-leak gate runs here, right before every
 * spawn, with the codebase's consent (never for a fork's code).
 */
export async function prepareTurnWorkspace(
  deps: ServiceContext,
  conversation: Conversation,
  signal: AbortSignal,
): Promise<TurnWorkspace> {
  const { db, home, logger, environment } = deps;
  const codebase = conversation.codebaseId ? await findCodebase(db.knex, conversation.codebaseId) : undefined;
  if (!codebase) {
    return { cwd: scratchFolder(home, conversation.id), config: deps.config.global(), untrusted: false };
  }
  // The base branch's config (the codebase's own checkout), never the worktree's.
  const baseConfig = deps.config.forRepository(codebase.sourcePath);
  const pull = await givenPullRequestWorktree(deps, conversation, codebase.id);
  const config = pull?.untrusted ? withoutRepositorySecrets(baseConfig) : baseConfig;
  const { environment: worktree } = await ensureWorktree({
    db,
    codebaseId: codebase.id,
    sourcePath: codebase.sourcePath,
    worktreesRoot: worktreesRootFor(codebase.sourcePath, config.effective.paths.worktrees),
    kind: pull ? 'pr' : 'thread',
    key: pull ? pull.key : conversation.id,
    untrusted: pull?.untrusted,
    configuredBaseBranch: config.effective.worktree.baseBranch,
    copyFiles: config.effective.worktree.copyFiles,
    credentials: codebase.url ? await gitCredentialsForUrl(codebase.url, environment) : undefined,
    logger,
    signal,
  });
  if (conversation.isolationEnvironmentId !== worktree.id) {
    await attachEnvironment(db.knex, conversation.id, worktree);
  }
  const consent = codebase.allowEnvKeys && !worktree.untrusted;
  await assertNoEnvLeak({ dir: worktree.path, consent, config, logger });
  return { cwd: worktree.path, codebase, config, untrusted: worktree.untrusted };
}
