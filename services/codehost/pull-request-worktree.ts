import type { Codebase } from '../../db/repositories/codebases.js';
import type { IsolationEnvironment } from '../../db/repositories/isolation-environments.js';
import type { PullRequestHead } from '../../infra/codehost/code-host-client.js';
import { gitOptions } from '../../infra/git/base-branch.js';
import { gitCredentialsForUrl } from '../../infra/git/credentials.js';
import { gitSucceeds, runGit } from '../../infra/git/run-git.js';
import { uncommittedChanges } from '../../infra/git/worktree-status.js';
import { worktreesRootFor } from '../codebases/workspace.js';
import type { ServiceContext } from '../context.js';
import { ensureWorktree, withRepositoryLock } from '../worktrees/worktrees.js';

/** Where a pull request's head is kept in the codebase's checkout: out of the branch namespace. */
export function pullRequestRef(number: number): string {
  return `refs/cairn/pull/${number}`;
}

/** Fetches the head (refs/pull/<n>/head, refs/merge-requests/<n>/head) with the platform's token; answers its commit. */
async function fetchHead(context: ServiceContext, codebase: Codebase, number: number, head: PullRequestHead) {
  const credentials = codebase.url
    ? await gitCredentialsForUrl(codebase.url, context.environment)
    : undefined;
  return withRepositoryLock(codebase.sourcePath, async (source) => {
    await runGit(['fetch', '--quiet', '--no-tags', 'origin', `+${head.ref}:${pullRequestRef(number)}`], {
      ...gitOptions(source, { credentials }),
      timeoutMs: 600_000,
    });
    return (
      await runGit(['rev-parse', '--verify', `${pullRequestRef(number)}^{commit}`], { cwd: source })
    ).trim();
  });
}

/**
 * Moves an existing pull-request worktree to the new head when that loses nothing: it is clean
 * and the head only adds commits to what it has. Otherwise (the bot's own commits or edits,
 * a force-push) it stays where it is, and the log says so.
 */
async function followHead(context: ServiceContext, worktree: IsolationEnvironment, commit: string) {
  const path = worktree.path;
  const at = (await runGit(['rev-parse', 'HEAD'], { cwd: path })).trim();
  if (at === commit) return;
  const clean = (await uncommittedChanges(path)).length === 0;
  const ahead = await gitSucceeds(['merge-base', '--is-ancestor', at, commit], { cwd: path });
  if (clean && ahead) {
    await runGit(['merge', '--quiet', '--ff-only', commit], { cwd: path });
    return;
  }
  context.logger.warn(
    { event: 'code_host.pull_worktree_kept', environmentId: worktree.id, at, head: commit },
    'the pull request moved, but its worktree has work of its own: left where it is',
  );
}

/**
 * The worktree of a pull request (`cairn/pr-<n>`) at its current head, fetched from the base
 * repository with the platform's token. A fork's head is marked untrusted: turns there get no
 * secrets and no env-key consent. The codebase's own checkout (the base branch) is never
 * switched: workflows and `.cairn/config.yaml` keep coming from there.
 */
export async function pullRequestWorktree(
  context: ServiceContext,
  codebase: Codebase,
  number: number,
  head: PullRequestHead,
): Promise<IsolationEnvironment> {
  const commit = await fetchHead(context, codebase, number, head);
  const config = context.config.forRepository(codebase.sourcePath).effective;
  const { environment, adopted } = await ensureWorktree({
    db: context.db,
    codebaseId: codebase.id,
    sourcePath: codebase.sourcePath,
    worktreesRoot: worktreesRootFor(codebase.sourcePath, config.paths.worktrees),
    kind: 'pr',
    key: String(number),
    configuredBaseBranch: config.worktree.baseBranch,
    copyFiles: config.worktree.copyFiles,
    startFrom: commit,
    untrusted: head.fromFork,
    credentials: codebase.url ? await gitCredentialsForUrl(codebase.url, context.environment) : undefined,
    logger: context.logger,
  });
  // A branch kept from an earlier worktree of this pull request is checked out as it was: follow the head.
  if (adopted || (await runGit(['rev-parse', 'HEAD'], { cwd: environment.path })).trim() !== commit)
    await followHead(context, environment, commit);
  return environment;
}
