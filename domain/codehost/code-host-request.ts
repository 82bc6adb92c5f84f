import type { CodeHostPlatform } from '../chat/chat-address.js';

// What a code-host webhook asks of the bot, the same shape for GitHub and GitLab: the adapters
// turn each platform's payload into this, the services act on it. Pure data (it is a workflow's
// input and is stored with the delivery record).

/** The issue, pull request or merge request a request was made in. */
export interface CodeHostThread {
  kind: 'issue' | 'pull';
  /** GitHub's number, GitLab's iid. */
  number: number;
  title: string;
  body: string;
  url: string;
  /** A pull request whose head is in another repository: nothing runs there unless the codebase opts in. */
  fromFork: boolean;
}

/** The comment (or issue/pull-request body) that mentioned the bot. */
export interface CodeHostTrigger {
  kind: 'comment' | 'thread';
  /** The comment's id; the thread's number for a body. */
  id: string;
  /** The platform's update time: an edited comment is a new request, a redelivery is not. */
  updatedAt: string;
}

export interface CodeHostActor {
  login: string;
  id: string;
  /** A bot account (GitHub's type "Bot", GitLab's bot users): never answered, so bots cannot loop. */
  isBot: boolean;
}

export interface CodeHostRepository {
  /** `owner/repo` (GitHub) or `group/subgroup/project` (GitLab). */
  path: string;
  /** GitLab's numeric project id (the API takes it or the encoded path). */
  projectId?: number;
  cloneUrl: string;
  defaultBranch?: string;
  /** The GitHub App installation the webhook came through (`installation.id`), when it did. */
  installationId?: number;
}

export interface CodeHostRequest {
  platform: CodeHostPlatform;
  /** The platform's id of the delivery (X-GitHub-Delivery, GitLab's webhook-id or event UUID). */
  deliveryId: string;
  repository: CodeHostRepository;
  thread: CodeHostThread;
  trigger: CodeHostTrigger;
  actor: CodeHostActor;
  /** What was asked, the bot's mention taken out. */
  text: string;
}

/** What the adapters answer for a payload the bot does not act on (logged at debug). */
export interface IgnoredDelivery {
  ignored: string;
}

/**
 * The key a request is deduplicated by: the thread, the trigger and its update time. A redelivery
 * (same comment, same time) has the same key whatever its delivery id; an edit has a new one.
 */
export function requestKey(request: Pick<CodeHostRequest, 'repository' | 'thread' | 'trigger'>): string {
  const { repository, thread, trigger } = request;
  return `${threadKey(repository.path, thread)}:${trigger.kind}:${trigger.id}@${trigger.updatedAt}`;
}

/**
 * The chat key of a thread, one conversation each: `owner/repo#12` (GitHub numbers issues and
 * pull requests together), `group/project#12` or `group/project!12` on GitLab (its notation).
 */
export function threadKey(repositoryPath: string, thread: Pick<CodeHostThread, 'kind' | 'number'>): string {
  return `${repositoryPath}${thread.kind === 'pull' ? '!' : '#'}${thread.number}`;
}

/** Reads a thread key back: the repository and the thread. */
export function parseThreadKey(key: string): {
  repositoryPath: string;
  kind: 'issue' | 'pull';
  number: number;
} {
  const match = /^(.+)([#!])(\d+)$/.exec(key);
  if (!match) throw new Error(`not a code-host thread key: ${key}`);
  return { repositoryPath: match[1]!, kind: match[2] === '!' ? 'pull' : 'issue', number: Number(match[3]) };
}

const MENTION_END = /[^A-Za-z0-9_.-]|$/;

/**
 * The text after the bot's @mention when the text mentions it (case-insensitive, a whole name:
 * `@cairn` is not in `@cairnbot`), else undefined. The mention is taken out wherever it stands.
 */
export function textAfterMention(text: string, mention: string): string | undefined {
  const name = mention.replace(/^@/, '').toLowerCase();
  if (!name) return undefined;
  const lower = text.toLowerCase();
  let at = lower.indexOf(`@${name}`);
  while (at !== -1) {
    const before = at === 0 ? '' : lower[at - 1]!;
    const after = lower.slice(at + name.length + 1);
    if (!/[A-Za-z0-9_]/.test(before) && MENTION_END.exec(after)?.index === 0) {
      return `${text.slice(0, at)}${text.slice(at + name.length + 1)}`.replace(/^[\s,:]+/, '').trim();
    }
    at = lower.indexOf(`@${name}`, at + 1);
  }
  return undefined;
}
