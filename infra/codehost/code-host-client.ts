import type { ChatMessenger } from '../../domain/chat/chat-messenger.js';
import type { CodeHostPlatform } from '../../domain/chat/chat-address.js';

// What the services need of a code host's REST API, the same for GitHub (Octokit) and GitLab
// (GitBeaker). Comments go through the ChatMessenger side, so the chat reply machinery posts
// and edits them like chat messages.

export interface ThreadComment {
  id: string;
  author: string;
  body: string;
}

export interface ThreadRef {
  repositoryPath: string;
  /** GitLab's numeric project id when known (the path works too). */
  projectId?: number;
  kind: 'issue' | 'pull';
  number: number;
}

/** A pull request's (merge request's) head, as the platform has it now. */
export interface PullRequestHead {
  /** The head commit. */
  sha: string;
  /** The ref of the base repository that holds the head, fetched with the token (refs/pull/7/head). */
  ref: string;
  /** The head is another repository's (a fork's): its code is untrusted. */
  fromFork: boolean;
}

/** A branch already pushed to the repository, to be proposed as a pull request (merge request). */
export interface ProposedChange {
  repositoryPath: string;
  projectId?: number;
  branch: string;
  base: string;
  title: string;
  body: string;
}

export interface OpenedPullRequest {
  number: number;
  url: string;
  /** False when an open one for the branch existed (the push updated it). */
  created: boolean;
}

/**
 * A workflow run shown on a pull request's head commit, as the platform shows outside work: a
 * check run on GitHub (the Checks API), a commit status on GitLab. One per workflow run.
 */
export interface RunStatusStart {
  repositoryPath: string;
  headSha: string;
  /** `cairn/<workflow>`. */
  name: string;
  /** The workflow run's id: a retried start finds what an earlier attempt made, never makes it twice. */
  externalId: string;
  detailsUrl?: string;
  title: string;
  summary: string;
}

export interface RunStatusEnd {
  conclusion: 'success' | 'failure' | 'cancelled' | 'neutral';
  title: string;
  summary: string;
}

/**
 * The platform will not let these credentials show run statuses (403): a personal token on GitHub,
 * a token without the api scope or the Developer role on GitLab.
 */
export class RunStatusRefused extends Error {}

export interface RunStatuses {
  /** The run's status on the commit, in progress; what `complete` takes to find it again. */
  start(status: RunStatusStart): Promise<string>;
  complete(repositoryPath: string, statusId: string, end: RunStatusEnd): Promise<void>;
}

export interface CodeHostClient extends ChatMessenger {
  readonly platform: CodeHostPlatform;
  /** Whether the user may push to the repository (GitHub write/maintain/admin, GitLab Developer or above). */
  canWrite(repositoryPath: string, actor: { login: string; id: string }): Promise<boolean>;
  /** The 👀 acknowledgement on the comment (or the thread's body) that asked. */
  acknowledge(thread: ThreadRef, trigger: { kind: 'comment' | 'thread'; id: string }): Promise<void>;
  /** The thread's latest comments, oldest first. */
  recentComments(thread: ThreadRef, count: number): Promise<ThreadComment[]>;
  /** The head of a pull request (merge request), and whether it comes from a fork. */
  pullRequestHead(thread: ThreadRef): Promise<PullRequestHead>;
  /** The open pull request of the branch, or a new one. */
  openPullRequest(change: ProposedChange): Promise<OpenedPullRequest>;
  /** The login the token acts as: the bot's own comments are never answered. */
  botLogin(): Promise<string>;
  /** A workflow run's status on a commit: check runs (GitHub), commit statuses (GitLab). */
  readonly runStatuses?: RunStatuses;
}

/** Statuses after which a platform may say when to come back: rate limits, and 5xx during maintenance. */
function mayAskToWait(status: number | undefined): boolean {
  return status === 429 || status === 403 || (status !== undefined && status >= 500 && status <= 599);
}

/** Retry-After as seconds or as an HTTP date (RFC 9110), in ms from now. */
function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** An exhausted rate limit's reset time (epoch seconds), in ms from now with a second to spare. */
function resetMs(remaining: string | undefined, reset: string | undefined, now: number): number | undefined {
  if (remaining !== '0' || reset === undefined || !/^\d+$/.test(reset)) return undefined;
  return Math.max(0, Number(reset) * 1000 - now) + 1000;
}

/**
 * Waits a code host asks for, in ms: Retry-After (seconds or a date) on a rate limit or a 5xx, or
 * the reset time of an exhausted rate limit (GitHub's x-ratelimit-*, GitLab's RateLimit-*).
 * Headers are read lower-cased, as both SDKs hand them over.
 */
export function codeHostWaitMs(
  status: number | undefined,
  headers: Record<string, string | undefined>,
  now = Date.now(),
): number | undefined {
  if (!mayAskToWait(status)) return undefined;
  const asked = retryAfterMs(headers['retry-after'], now);
  if (asked !== undefined) return asked;
  // A 5xx without Retry-After is an outage, not a limit: the activity's backoff handles it.
  if (status !== 429 && status !== 403) return undefined;
  return (
    resetMs(headers['x-ratelimit-remaining'], headers['x-ratelimit-reset'], now) ??
    resetMs(headers['ratelimit-remaining'], headers['ratelimit-reset'], now)
  );
}
