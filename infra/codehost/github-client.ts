import { Octokit } from '@octokit/rest';
import { ChatDeliveryRefused, type ChatMessageOptions } from '../../domain/chat/chat-messenger.js';
import type { ChatAddress } from '../../domain/chat/chat-address.js';
import { parseThreadKey } from '../../domain/codehost/code-host-request.js';
import { splitMessage } from '../../domain/chat/split-message.js';
import { waitOutRateLimits } from '../chat/rate-limit-waits.js';
import {
  codeHostWaitMs,
  RunStatusRefused,
  type RunStatuses,
  type CodeHostClient,
  type ProposedChange,
  type ThreadRef,
} from './code-host-client.js';
import { commentWithButtons } from './comment-text.js';
import type { GitHubApp } from './github-app.js';
import { installationAuth } from './github-app-octokit.js';

export interface GitHubConnection {
  /** GITHUB_TOKEN, or undefined with `app`. */
  token?: string;
  /** The GitHub App whose installation tokens act on each repository (it wins over `token`). */
  app?: GitHubApp;
  /** GITHUB_API_URL: https://api.github.com, a GitHub Enterprise Server's /api/v3, or a test's fake. */
  apiUrl: string;
}

// GitHub's limit for an issue comment's body (the API refuses longer ones with 422).
const GITHUB_COMMENT_LIMIT = 65_536;
// Secondary rate limits count content-changing calls (about 80 a minute): stay well inside.
const EDIT_INTERVAL_MS = 3_000;
// GitHub asks for at least a second between content-changing calls: what a ready answer waits.
const WRITE_GAP_MS = 1_000;
const WRITE_PERMISSIONS = new Set(['admin', 'maintain', 'write']);

interface OctokitError {
  status?: number;
  response?: { headers?: Record<string, string | undefined> };
}

function statusOf(error: unknown): number | undefined {
  return (error as OctokitError)?.status;
}

const githubWait = (error: unknown) =>
  codeHostWaitMs(statusOf(error), (error as OctokitError)?.response?.headers ?? {});

/** A call with GitHub's rate limits waited out; a refusal no retry can change becomes ChatDeliveryRefused. */
async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await waitOutRateLimits(work, githubWait);
  } catch (error) {
    const status = statusOf(error);
    if (
      (status === 404 || status === 410 || status === 422 || status === 401) &&
      githubWait(error) === undefined
    ) {
      throw new ChatDeliveryRefused(
        `GitHub refused the call (${status}): ${(error as Error).message}`,
        'github',
      );
    }
    throw error;
  }
}

function repoOf(path: string): { owner: string; repo: string } {
  const [owner, repo] = path.split('/');
  if (!owner || !repo) throw new Error(`not a GitHub repository: ${path}`);
  return { owner, repo };
}

const quiet = () => undefined;

/** A 403 that is no rate limit: these credentials may not write check runs (a personal token). */
async function checksCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await call(work);
  } catch (error) {
    if (statusOf(error) === 403 && githubWait(error) === undefined)
      throw new RunStatusRefused(`GitHub refused check runs (403): ${(error as Error).message}`);
    throw error;
  }
}

function checkRunsOf(octokit: Octokit): RunStatuses {
  return {
    async start(check) {
      const repository = repoOf(check.repositoryPath);
      // A retried start finds the check run an earlier attempt made (by the run's id), so none is made twice.
      const listed = await checksCall(() =>
        octokit.rest.checks.listForRef({
          ...repository,
          ref: check.headSha,
          check_name: check.name,
          filter: 'all',
          per_page: 100,
        }),
      );
      const made = listed.data.check_runs.find((run) => run.external_id === check.externalId);
      if (made) return String(made.id);
      const created = await checksCall(() =>
        octokit.rest.checks.create({
          ...repository,
          name: check.name,
          head_sha: check.headSha,
          external_id: check.externalId,
          status: 'in_progress',
          started_at: new Date().toISOString(),
          ...(check.detailsUrl && { details_url: check.detailsUrl }),
          output: { title: check.title, summary: check.summary },
        }),
      );
      return String(created.data.id);
    },

    async complete(repositoryPath, checkRunId, end) {
      await checksCall(() =>
        octokit.rest.checks.update({
          ...repoOf(repositoryPath),
          check_run_id: Number(checkRunId),
          status: 'completed',
          conclusion: end.conclusion,
          completed_at: new Date().toISOString(),
          output: { title: end.title, summary: end.summary },
        }),
      );
    },
  };
}

/** GitHub through Octokit: comments as the reply messenger, permissions, reactions, thread context. */
export function createGitHubClient(connection: GitHubConnection): CodeHostClient {
  // No retries inside Octokit: the activity's retries (with backoff) and the waits above do it.
  const { app } = connection;
  const octokit = new Octokit({
    ...(app ? { authStrategy: installationAuth, auth: { app } } : { auth: connection.token }),
    baseUrl: connection.apiUrl.replace(/\/$/, ''),
    // Failures are thrown to the activity, which retries and logs them; Octokit's own console lines are noise.
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
  let login: Promise<string> | undefined;

  function thread(address: ChatAddress) {
    const { repositoryPath, number } = parseThreadKey(address.chatId);
    return { ...repoOf(repositoryPath), issue_number: number };
  }

  return {
    platform: 'github',
    runStatuses: checkRunsOf(octokit),
    editIntervalMs: EDIT_INTERVAL_MS,
    writeGapMs: WRITE_GAP_MS,
    answersInPlace: true,

    split: (markdown) => splitMessage(markdown, GITHUB_COMMENT_LIMIT - 200),

    async send(address: ChatAddress, markdown: string, options?: ChatMessageOptions): Promise<string> {
      const created = await call(() =>
        octokit.rest.issues.createComment({
          ...thread(address),
          body: commentWithButtons(markdown, options),
        }),
      );
      return String(created.data.id);
    },

    async edit(address: ChatAddress, messageId: string, markdown: string, options?: ChatMessageOptions) {
      const { owner, repo } = thread(address);
      await call(() =>
        octokit.rest.issues.updateComment({
          owner,
          repo,
          comment_id: Number(messageId),
          body: commentWithButtons(markdown, options),
        }),
      );
    },

    async canWrite(repositoryPath: string, actor): Promise<boolean> {
      try {
        const answer = await waitOutRateLimits(
          () =>
            octokit.rest.repos.getCollaboratorPermissionLevel({
              ...repoOf(repositoryPath),
              username: actor.login,
            }),
          githubWait,
        );
        return WRITE_PERMISSIONS.has(answer.data.permission);
      } catch (error) {
        // Not a collaborator (or not a user): no write access.
        if (statusOf(error) === 404) return false;
        throw error;
      }
    },

    async acknowledge(ref: ThreadRef, trigger): Promise<void> {
      const repository = repoOf(ref.repositoryPath);
      await call(() =>
        trigger.kind === 'comment'
          ? octokit.rest.reactions.createForIssueComment({
              ...repository,
              comment_id: Number(trigger.id),
              content: 'eyes',
            })
          : octokit.rest.reactions.createForIssue({
              ...repository,
              issue_number: ref.number,
              content: 'eyes',
            }),
      );
    },

    async recentComments(ref: ThreadRef, count: number) {
      const listed = await call(() =>
        octokit.rest.issues.listComments({
          ...repoOf(ref.repositoryPath),
          issue_number: ref.number,
          per_page: 100,
        }),
      );
      return listed.data.slice(-count).map((comment) => ({
        id: String(comment.id),
        author: comment.user?.login ?? 'someone',
        body: comment.body ?? '',
      }));
    },

    async pullRequestHead(ref: ThreadRef) {
      const repository = repoOf(ref.repositoryPath);
      const pull = await call(() => octokit.rest.pulls.get({ ...repository, pull_number: ref.number }));
      const head = pull.data.head;
      return {
        sha: head.sha,
        ref: `refs/pull/${ref.number}/head`,
        // A deleted fork has no repository any more: still not this one.
        fromFork: head.repo?.full_name?.toLowerCase() !== ref.repositoryPath.toLowerCase(),
      };
    },

    async openPullRequest(change: ProposedChange) {
      const repository = repoOf(change.repositoryPath);
      const open = await call(() =>
        octokit.rest.pulls.list({
          ...repository,
          head: `${repository.owner}:${change.branch}`,
          state: 'open',
        }),
      );
      const existing = open.data[0];
      if (existing) return { number: existing.number, url: existing.html_url, created: false };
      const created = await call(() =>
        octokit.rest.pulls.create({
          ...repository,
          head: change.branch,
          base: change.base,
          title: change.title,
          body: change.body,
        }),
      );
      return { number: created.data.number, url: created.data.html_url, created: true };
    },

    botLogin(): Promise<string> {
      // An App's installation token cannot ask who it is (GET /user): the App's own route says.
      if (app) return call(() => app.botLogin());
      login ??= call(() => octokit.rest.users.getAuthenticated()).then((answer) => answer.data.login);
      login.catch(() => (login = undefined));
      return login;
    },
  };
}
