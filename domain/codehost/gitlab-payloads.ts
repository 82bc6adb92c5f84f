import type { CodeHostRequest, IgnoredDelivery } from './code-host-request.js';
import { textAfterMention } from './code-host-request.js';
import { parseCommand } from '../commands/command-grammar.js';
import { idAt, numberAt, objectAt, stringAt, type Fields } from './payload-fields.js';

// GitLab's webhook payloads (Note Hook on issues and merge requests, Issue Hook, Merge Request
// Hook) turned into the platform-neutral request, as the GitHub adapter does.

export interface GitLabDelivery {
  /** webhook-id (signed webhooks) or X-Gitlab-Event-UUID. */
  deliveryId: string;
  payload: unknown;
}

const ignore = (ignored: string): IgnoredDelivery => ({ ignored });

export function gitlabRequest(delivery: GitLabDelivery, mention: string): CodeHostRequest | IgnoredDelivery {
  const kind = stringAt(delivery.payload, 'object_kind');
  if (kind === 'note') return noteRequest(delivery, mention);
  if (kind === 'issue' || kind === 'merge_request') return threadRequest(delivery, kind, mention);
  return ignore(`object_kind ${kind ?? '(none)'}`);
}

function repositoryOf(payload: unknown) {
  const project = objectAt(payload, 'project');
  const path = stringAt(project, 'path_with_namespace');
  const cloneUrl = stringAt(project, 'git_http_url') ?? stringAt(project, 'http_url');
  if (!path || !cloneUrl) return undefined;
  return {
    path,
    projectId: numberAt(project, 'id'),
    cloneUrl,
    defaultBranch: stringAt(project, 'default_branch'),
  };
}

function actorOf(user: Fields | undefined) {
  const login = stringAt(user, 'username');
  const id = idAt(user, 'id');
  if (!login || !id) return undefined;
  // Project and group access tokens act as bot users named project_<id>_bot_<hash> / group_..._bot_...
  const isBot = user?.bot === true || /^(project|group)_\d+_bot(_|$)/.test(login);
  return { login, id, isBot };
}

function askedText(text: string, mention: string): string | undefined {
  const mentioned = textAfterMention(text, mention);
  if (mentioned !== undefined) return mentioned;
  const trimmed = text.trim();
  return parseCommand(trimmed).kind === 'message' ? undefined : trimmed;
}

function forkOf(mergeRequest: Fields | undefined): boolean {
  const source = numberAt(mergeRequest, 'source_project_id');
  const target = numberAt(mergeRequest, 'target_project_id');
  return source !== undefined && target !== undefined && source !== target;
}

function noteRequest(delivery: GitLabDelivery, mention: string): CodeHostRequest | IgnoredDelivery {
  const { payload } = delivery;
  const note = objectAt(payload, 'object_attributes');
  const noteable = stringAt(note, 'noteable_type');
  if (noteable !== 'Issue' && noteable !== 'MergeRequest')
    return ignore(`a note on ${noteable ?? 'nothing'}`);
  const pull = noteable === 'MergeRequest';
  const thread = objectAt(payload, pull ? 'merge_request' : 'issue');
  const repository = repositoryOf(payload);
  const number = numberAt(thread, 'iid');
  const noteId = idAt(note, 'id');
  const body = stringAt(note, 'note');
  const updatedAt = stringAt(note, 'updated_at');
  const actor = actorOf(objectAt(payload, 'user'));
  if (!repository || number === undefined || !noteId || body === undefined || !updatedAt || !actor) {
    return ignore('a note without the fields it needs');
  }
  const text = askedText(body, mention);
  if (text === undefined) return ignore('a note that does not mention the bot');
  return {
    platform: 'gitlab',
    deliveryId: delivery.deliveryId,
    repository,
    thread: {
      kind: pull ? 'pull' : 'issue',
      number,
      title: stringAt(thread, 'title') ?? '',
      body: stringAt(thread, 'description') ?? '',
      url: stringAt(thread, 'url') ?? '',
      fromFork: pull && forkOf(thread),
    },
    trigger: { kind: 'comment', id: noteId, updatedAt },
    actor,
    text,
  };
}

function threadRequest(
  delivery: GitLabDelivery,
  kind: 'issue' | 'merge_request',
  mention: string,
): CodeHostRequest | IgnoredDelivery {
  const { payload } = delivery;
  const thread = objectAt(payload, 'object_attributes');
  const action = stringAt(thread, 'action');
  if (action !== 'open' && action !== 'update') return ignore(`${kind} ${action ?? 'without action'}`);
  const repository = repositoryOf(payload);
  const number = numberAt(thread, 'iid');
  const body = stringAt(thread, 'description') ?? '';
  const updatedAt = stringAt(thread, 'updated_at');
  const actor = actorOf(objectAt(payload, 'user'));
  if (!repository || number === undefined || !updatedAt || !actor)
    return ignore(`${kind} without the fields it needs`);
  const text = textAfterMention(body, mention);
  if (text === undefined) return ignore(`${kind} whose description does not mention the bot`);
  const pull = kind === 'merge_request';
  return {
    platform: 'gitlab',
    deliveryId: delivery.deliveryId,
    repository,
    thread: {
      kind: pull ? 'pull' : 'issue',
      number,
      title: stringAt(thread, 'title') ?? '',
      body,
      url: stringAt(thread, 'url') ?? '',
      fromFork: pull && forkOf(thread),
    },
    trigger: { kind: 'thread', id: String(number), updatedAt },
    actor,
    text,
  };
}
