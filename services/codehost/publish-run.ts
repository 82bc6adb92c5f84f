import { findCodebase } from '../../db/repositories/codebases.js';
import { findEnvironment } from '../../db/repositories/isolation-environments.js';
import { findRun } from '../../db/repositories/workflow-runs.js';
import type { ChatAddress } from '../../domain/chat/chat-address.js';
import { parseThreadKey } from '../../domain/codehost/code-host-request.js';
import type { CodeHostClient } from '../../infra/codehost/code-host-client.js';
import { gitOptions } from '../../infra/git/base-branch.js';
import { gitCredentialsForUrl } from '../../infra/git/credentials.js';
import { gitOutputOrUndefined, runGit } from '../../infra/git/run-git.js';
import type { ChatPosts } from '../chat/chat-posts.js';
import type { ServiceContext } from '../context.js';
import { pullRequestRef } from './pull-request-worktree.js';

export type PublishOutcome = 'published' | 'unchanged' | 'not_completed' | 'elsewhere' | 'from_fork';

/**
 * After a run started in a code-host thread completes: when its worktree's branch has commits
 * the base branch has not, the branch is pushed (with the platform's token, to Cairn's own
 * `cairn/run-…` branch) and proposed as a pull request (merge request), or the open one of the
 * branch is updated by the push; the thread gets one comment linking it. A run that changed
 * nothing, failed, or worked on another repository's codebase publishes nothing; one on a fork's
 * code never pushes it, and says so in the thread when it committed something.
 */
export async function publishRunChanges(
  context: ServiceContext,
  client: CodeHostClient,
  posts: ChatPosts,
  input: { address: ChatAddress; runId: string },
): Promise<PublishOutcome> {
  const outcome = await publish(context, client, posts, input);
  if (outcome !== 'published')
    context.logger.info({ event: 'code_host.run_not_published', runId: input.runId, reason: outcome });
  return outcome;
}

async function publish(
  context: ServiceContext,
  client: CodeHostClient,
  posts: ChatPosts,
  input: { address: ChatAddress; runId: string },
): Promise<PublishOutcome> {
  const { knex } = context.db;
  const run = await findRun(knex, input.runId);
  if (!run || run.status !== 'completed') return 'not_completed';
  const worktree = run.isolationEnvironmentId
    ? await findEnvironment(knex, run.isolationEnvironmentId)
    : undefined;
  const codebase = worktree ? await findCodebase(knex, worktree.codebaseId) : undefined;
  const thread = parseThreadKey(input.address.chatId);
  // Only to the thread's own repository, and never code that came from outside it.
  if (
    !worktree ||
    !codebase?.url ||
    !codebase.repositoryKey.endsWith(`/${thread.repositoryPath.toLowerCase()}`)
  )
    return 'elsewhere';
  const base = worktree.baseBranch ?? codebase.defaultBranch ?? undefined;
  // A fork's run is counted from the pull request's head only: its base holds none of the fork's commits.
  const ahead = await commitsOfTheRun(worktree.path, thread, worktree.untrusted ? undefined : base);
  if (!ahead || ahead === '0') return 'unchanged';
  if (worktree.untrusted) return keepForkChanges(posts, input.address, worktree.branch, run.id, ahead);
  if (!base) return 'unchanged';

  const credentials = await gitCredentialsForUrl(codebase.url, context.environment);
  // The branch is Cairn's own (cairn/run-…): a retried push replaces what an earlier attempt sent.
  await runGit(['push', '--quiet', 'origin', `+HEAD:refs/heads/${worktree.branch}`], {
    ...gitOptions(worktree.path, { credentials }),
    timeoutMs: 600_000,
  });
  const what = input.address.platform === 'gitlab' ? 'merge request' : 'pull request';
  const opened = await client.openPullRequest({
    repositoryPath: thread.repositoryPath,
    branch: worktree.branch,
    base,
    title: `${run.workflowName}: ${run.message?.trim() || 'changes of a Cairn run'}`.slice(0, 200),
    body: `The changes of workflow run \`${run.id}\` (\`${run.workflowName}\`), started in ${thread.repositoryPath}${thread.kind === 'pull' ? '!' : '#'}${thread.number}.`,
  });
  const sign = input.address.platform === 'gitlab' ? '!' : '#';
  await posts.ensure(
    'pull-request',
    `${opened.created ? 'Opened' : 'Updated'} ${what} ${sign}${opened.number} with the ${ahead} commit(s) of \`${worktree.branch}\`: ${opened.url}`,
  );
  context.logger.info({
    event: 'code_host.run_published',
    runId: run.id,
    branch: worktree.branch,
    number: opened.number,
    created: opened.created,
  });
  return 'published';
}

/**
 * The commits the run made. In a pull request the run starts at the pull request's head, whose
 * own commits the base branch has not either: counted from the base branch, a run that changed
 * nothing would propose the pull request's commits again.
 */
async function commitsOfTheRun(
  cwd: string,
  thread: ReturnType<typeof parseThreadKey>,
  base: string | undefined,
): Promise<string | undefined> {
  const count = (since: string) => gitOutputOrUndefined(['rev-list', '--count', `${since}..HEAD`], { cwd });
  if (thread.kind === 'pull') {
    const fromHead = await count(pullRequestRef(thread.number));
    if (fromHead !== undefined) return fromHead;
  }
  return base ? count(`refs/remotes/origin/${base}`) : undefined;
}

/**
 * A run on a fork's code (an untrusted worktree) pushes nothing: the fork's commits would reach
 * the repository with the platform's token. When the run committed something beyond the pull
 * request's head (`commits` of its own), the thread is told why no pull request follows.
 */
async function keepForkChanges(
  posts: ChatPosts,
  address: ChatAddress,
  branch: string,
  runId: string,
  commits: string,
): Promise<PublishOutcome> {
  const what = address.platform === 'gitlab' ? 'merge request' : 'pull request';
  await posts.ensure(
    'fork-changes',
    `Workflow run \`${runId}\` made ${commits} commit(s) on \`${branch}\`. They were not pushed ` +
      `and no ${what} was opened, because this ${what} comes from a fork.`,
  );
  return 'from_fork';
}
