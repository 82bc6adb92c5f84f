import type { CodeHostRequest, IgnoredDelivery } from './code-host-request.js';
import { textAfterMention } from './code-host-request.js';
import { parseCommand } from '../commands/command-grammar.js';
import { idAt, numberAt, objectAt, stringAt, type Fields } from './payload-fields.js';

// GitHub's webhook payloads (issue_comment, issues, pull_request) turned into the platform-neutral
// request. A comment asks when it mentions the bot or is a command; an issue or pull request
// asks when it is opened (or its description edited) mentioning the bot.

export interface GitHubDelivery {
  /** X-GitHub-Event */
  event: string;
  /** X-GitHub-Delivery */
  deliveryId: string;
  payload: unknown;
}

const ignore = (ignored: string): IgnoredDelivery => ({ ignored });

export function githubRequest(delivery: GitHubDelivery, mention: string): CodeHostRequest | IgnoredDelivery {
  const { event, payload } = delivery;
  const action = stringAt(payload, 'action');
  if (event === 'issue_comment') {
    if (action !== 'created' && action !== 'edited')
      return ignore(`issue_comment ${action ?? 'without action'}`);
    return commentRequest(delivery, mention);
  }
  if (event === 'issues' || event === 'pull_request') {
    if (action !== 'opened' && action !== 'edited') return ignore(`${event} ${action ?? 'without action'}`);
    return threadRequest(delivery, mention);
  }
  return ignore(`event ${event || '(none)'}`);
}

function repositoryOf(payload: unknown) {
  const repository = objectAt(payload, 'repository');
  const path = stringAt(repository, 'full_name');
  const cloneUrl = stringAt(repository, 'clone_url');
  if (!path || !cloneUrl || !/^[^/]+\/[^/]+$/.test(path)) return undefined;
  const installationId = numberAt(objectAt(payload, 'installation'), 'id');
  return {
    path,
    cloneUrl,
    defaultBranch: stringAt(repository, 'default_branch'),
    ...(installationId !== undefined && { installationId }),
  };
}

function actorOf(user: Fields | undefined) {
  const login = stringAt(user, 'login');
  const id = idAt(user, 'id');
  if (!login || !id) return undefined;
  return { login, id, isBot: stringAt(user, 'type') === 'Bot' || login.endsWith('[bot]') };
}

/** What the text asks: the text without the mention, or a command on its own; undefined when neither. */
function askedText(text: string, mention: string): string | undefined {
  const mentioned = textAfterMention(text, mention);
  if (mentioned !== undefined) return mentioned;
  const trimmed = text.trim();
  return parseCommand(trimmed).kind === 'message' ? undefined : trimmed;
}

function commentRequest(delivery: GitHubDelivery, mention: string): CodeHostRequest | IgnoredDelivery {
  const { payload } = delivery;
  const issue = objectAt(payload, 'issue');
  const comment = objectAt(payload, 'comment');
  const repository = repositoryOf(payload);
  const number = numberAt(issue, 'number');
  const commentId = idAt(comment, 'id');
  const body = stringAt(comment, 'body');
  const updatedAt = stringAt(comment, 'updated_at');
  const actor = actorOf(objectAt(comment, 'user'));
  if (!repository || number === undefined || !commentId || body === undefined || !updatedAt || !actor) {
    return ignore('issue_comment without the fields it needs');
  }
  const text = askedText(body, mention);
  if (text === undefined) return ignore('a comment that does not mention the bot');
  return {
    platform: 'github',
    deliveryId: delivery.deliveryId,
    repository,
    thread: {
      kind: objectAt(issue, 'pull_request') ? 'pull' : 'issue',
      number,
      title: stringAt(issue, 'title') ?? '',
      body: stringAt(issue, 'body') ?? '',
      url: stringAt(issue, 'html_url') ?? '',
      // Known on pull_request events only; a comment's thread is checked before anything runs.
      fromFork: false,
    },
    trigger: { kind: 'comment', id: commentId, updatedAt },
    actor,
    text,
  };
}

function threadRequest(delivery: GitHubDelivery, mention: string): CodeHostRequest | IgnoredDelivery {
  const { event, payload } = delivery;
  const pull = event === 'pull_request';
  const thread = objectAt(payload, pull ? 'pull_request' : 'issue');
  const repository = repositoryOf(payload);
  const number = numberAt(thread, 'number');
  const body = stringAt(thread, 'body') ?? '';
  const updatedAt = stringAt(thread, 'updated_at');
  const actor = actorOf(objectAt(payload, 'sender'));
  if (!repository || number === undefined || !updatedAt || !actor) {
    return ignore(`${event} without the fields it needs`);
  }
  const text = textAfterMention(body, mention);
  if (text === undefined) return ignore(`${event} whose description does not mention the bot`);
  const headRepository = stringAt(objectAt(objectAt(thread, 'head'), 'repo'), 'full_name');
  return {
    platform: 'github',
    deliveryId: delivery.deliveryId,
    repository,
    thread: {
      kind: pull ? 'pull' : 'issue',
      number,
      title: stringAt(thread, 'title') ?? '',
      body,
      url: stringAt(thread, 'html_url') ?? '',
      fromFork: pull && headRepository !== undefined && headRepository !== repository.path,
    },
    trigger: { kind: 'thread', id: String(number), updatedAt },
    actor,
    text,
  };
}
