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
}

/** Waits a code host asks for: Retry-After (seconds), or the reset time of an exhausted rate limit. */
export function codeHostWaitMs(
  status: number | undefined,
  headers: Record<string, string | undefined>,
): number | undefined {
  const retryAfter = headers['retry-after'];
  if ((status === 429 || status === 403) && retryAfter !== undefined && /^\d+$/.test(retryAfter)) {
    return Number(retryAfter) * 1000;
  }
  // GitHub's primary rate limit: 403/429 with x-ratelimit-remaining 0 and the reset as epoch seconds.
  if ((status === 429 || status === 403) && headers['x-ratelimit-remaining'] === '0') {
    const reset = Number(headers['x-ratelimit-reset']);
    if (Number.isFinite(reset)) return Math.max(0, reset * 1000 - Date.now()) + 1000;
  }
  return undefined;
}
