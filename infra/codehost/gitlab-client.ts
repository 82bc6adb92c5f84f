import { Gitlab } from '@gitbeaker/rest';
import type { ChatMessageOptions } from '../../domain/chat/chat-messenger.js';
import type { ChatAddress } from '../../domain/chat/chat-address.js';
import { parseThreadKey } from '../../domain/codehost/code-host-request.js';
import { splitMessage } from '../../domain/chat/split-message.js';
import { waitOutRateLimits } from '../chat/rate-limit-waits.js';
import type { CodeHostClient, ProposedChange, ThreadRef } from './code-host-client.js';
import { commentWithButtons } from './comment-text.js';
import { call, gitlabWait, responseOf } from './gitlab-calls.js';
import { commitStatusesOf } from './gitlab-commit-statuses.js';
import { singleCallRequester } from './gitlab-requester.js';

export interface GitLabConnection {
  token: string;
  /** GITLAB_URL: https://gitlab.com, a self-hosted instance, or a test's fake. */
  url: string;
}

// GitLab refuses notes over 1,000,000 characters; stay below with room for the buttons' line.
const GITLAB_NOTE_LIMIT = 1_000_000;
const EDIT_INTERVAL_MS = 3_000;
// The same one-second spacing of writes as on GitHub, for the edit that carries a ready answer.
const WRITE_GAP_MS = 1_000;
// Developer (30) and above may push.
const DEVELOPER_ACCESS = 30;

/** GitLab refuses an award emoji the user gave already with a 404 whose message says so. */
function alreadyAwarded(error: unknown): boolean {
  return responseOf(error)?.status === 404 && /already been taken/i.test((error as Error).message);
}

interface GitLabNote {
  id: number;
  system?: boolean;
  body?: string;
  author?: { username?: string };
}

/**
 * GitLab through GitBeaker: notes as the reply messenger, membership, award emoji, thread context,
 * commit statuses.
 */
export function createGitLabClient(connection: GitLabConnection): CodeHostClient {
  // One call per request (see gitlab-requester.ts): Retry-After and RateLimit-Reset are waited out here.
  const api = new Gitlab({
    token: connection.token,
    host: connection.url.replace(/\/$/, ''),
    requesterFn: singleCallRequester,
  });
  let login: Promise<string> | undefined;

  function notesOf(kind: 'issue' | 'pull') {
    return kind === 'pull' ? api.MergeRequestNotes : api.IssueNotes;
  }

  return {
    platform: 'gitlab',
    runStatuses: commitStatusesOf(api),
    editIntervalMs: EDIT_INTERVAL_MS,
    writeGapMs: WRITE_GAP_MS,
    answersInPlace: true,

    split: (markdown) => splitMessage(markdown, GITLAB_NOTE_LIMIT - 200),

    async send(address: ChatAddress, markdown: string, options?: ChatMessageOptions): Promise<string> {
      const { repositoryPath, kind, number } = parseThreadKey(address.chatId);
      const note = await call<{ id: number }>(() =>
        notesOf(kind).create(repositoryPath, number, commentWithButtons(markdown, options)),
      );
      return String(note.id);
    },

    async edit(address: ChatAddress, messageId: string, markdown: string, options?: ChatMessageOptions) {
      const { repositoryPath, kind, number } = parseThreadKey(address.chatId);
      await call<unknown>(() =>
        notesOf(kind).edit(repositoryPath, number, Number(messageId), {
          body: commentWithButtons(markdown, options),
        }),
      );
    },

    async canWrite(repositoryPath: string, actor): Promise<boolean> {
      try {
        const member = await waitOutRateLimits(
          () => api.ProjectMembers.show(repositoryPath, Number(actor.id), { includeInherited: true }),
          gitlabWait,
        );
        return member.access_level >= DEVELOPER_ACCESS;
      } catch (error) {
        if (responseOf(error)?.status === 404) return false;
        throw error;
      }
    },

    async acknowledge(ref: ThreadRef, trigger): Promise<void> {
      const project = ref.projectId ?? ref.repositoryPath;
      await call(async () => {
        try {
          if (trigger.kind === 'comment') {
            const emojis = ref.kind === 'pull' ? api.MergeRequestNoteAwardEmojis : api.IssueNoteAwardEmojis;
            await emojis.award(project, ref.number, Number(trigger.id), 'eyes');
          } else {
            const emojis = ref.kind === 'pull' ? api.MergeRequestAwardEmojis : api.IssueAwardEmojis;
            await emojis.award(project, ref.number, 'eyes');
          }
        } catch (error) {
          // A retried request, an edited comment: the 👀 is there already (GitLab says so with a 404).
          if (!alreadyAwarded(error)) throw error;
        }
      });
    },

    async recentComments(ref: ThreadRef, count: number) {
      const notes = await call<GitLabNote[]>(() =>
        notesOf(ref.kind).all(ref.projectId ?? ref.repositoryPath, ref.number, {
          sort: 'desc',
          orderBy: 'created_at',
          perPage: count,
          maxPages: 1,
        }),
      );
      return notes
        .filter((note) => !note.system)
        .reverse()
        .map((note) => ({
          id: String(note.id),
          author: note.author?.username ?? 'someone',
          body: note.body ?? '',
        }));
    },

    async pullRequestHead(ref: ThreadRef) {
      const request = await call<{ sha: string; source_project_id: number; target_project_id: number }>(
        () =>
          api.MergeRequests.show(ref.projectId ?? ref.repositoryPath, ref.number) as Promise<{
            sha: string;
            source_project_id: number;
            target_project_id: number;
          }>,
      );
      return {
        sha: request.sha,
        ref: `refs/merge-requests/${ref.number}/head`,
        fromFork: request.source_project_id !== request.target_project_id,
      };
    },

    async openPullRequest(change: ProposedChange) {
      const project = change.projectId ?? change.repositoryPath;
      const open = await call<Array<{ iid: number; web_url: string }>>(
        () =>
          api.MergeRequests.all({
            projectId: project,
            sourceBranch: change.branch,
            state: 'opened',
            maxPages: 1,
          }) as Promise<Array<{ iid: number; web_url: string }>>,
      );
      const existing = open[0];
      if (existing) return { number: existing.iid, url: existing.web_url, created: false };
      const created = await call<{ iid: number; web_url: string }>(
        () =>
          api.MergeRequests.create(project, change.branch, change.base, change.title, {
            description: change.body,
          }) as Promise<{ iid: number; web_url: string }>,
      );
      return { number: created.iid, url: created.web_url, created: true };
    },

    botLogin(): Promise<string> {
      login ??= call(() => api.Users.showCurrentUser()).then((user) => user.username);
      login.catch(() => (login = undefined));
      return login;
    },
  };
}
