import type { CodeHostClient, ThreadComment, ThreadRef } from '../../infra/codehost/code-host-client.js';
import { findCodebase } from '../../db/repositories/codebases.js';
import { attachEnvironment, setCodebaseIfUnset } from '../../db/repositories/conversations.js';
import type { ChatAddress } from '../../domain/chat/chat-address.js';
import type { ChatStreamingMode } from '../../domain/chat/chat-reply.js';
import { requestKey, threadKey, type CodeHostRequest } from '../../domain/codehost/code-host-request.js';
import { NEEDS_CLONE } from '../../domain/codehost/code-host-work.js';
import { parseCommand } from '../../domain/commands/command-grammar.js';
import { chatConversation, receiveChatMessage, type ChatDoorServices } from '../chat/chat-inbound.js';
import { pullRequestWorktree } from './pull-request-worktree.js';
import { registeredCodebaseForRequest, type RequestCodebase } from './request-codebase.js';
import type { ServiceContext } from '../context.js';

/** How one code host answers: who may ask, how it answers. */
export interface CodeHostSettings {
  /** GITHUB_ALLOWED_USERS / GITLAB_ALLOWED_USERS, lower-cased; empty or unset: anyone with write access. */
  allowedUsers?: readonly string[];
  mode: ChatStreamingMode;
  botName: string;
}

export type RequestOutcome = 'message' | 'command' | 'duplicate' | 'refused' | 'ignored' | 'answered';

/** Comments of the thread shown to the assistant with a question. */
const CONTEXT_COMMENTS = 10;
/** Each comment and the body are clipped to this many characters in the context. */
const CONTEXT_CLIP = 2_000;

function threadRef(request: CodeHostRequest): ThreadRef {
  return {
    repositoryPath: request.repository.path,
    projectId: request.repository.projectId,
    kind: request.thread.kind,
    number: request.thread.number,
  };
}

/**
 * Who asked: a bot (the bot itself included) is ignored; someone not allowed is refused in the
 * log only (a reply would tell a stranger how to get in); anyone else is acknowledged (👀).
 */
export async function admitCodeHostRequest(
  context: ServiceContext,
  client: CodeHostClient,
  settings: CodeHostSettings,
  request: CodeHostRequest,
): Promise<'admitted' | 'refused' | 'ignored'> {
  const log = { platform: request.platform, repository: request.repository.path, actor: request.actor.login };
  if (request.actor.isBot || sameLogin(request.actor.login, await client.botLogin())) {
    context.logger.debug({ event: 'code_host.ignored_bot', ...log }, 'a bot asked: ignored');
    return 'ignored';
  }
  if (!(await mayAsk(client, settings, request))) {
    context.logger.info({ event: 'code_host.refused', ...log }, 'a user who may not ask the bot: ignored');
    return 'refused';
  }
  await client.acknowledge(threadRef(request), request.trigger);
  return 'admitted';
}

/**
 * An admitted request becomes a message or a command of the thread's conversation, answered by
 * the chat reply workflow in one tracking comment. The conversation works on the repository's
 * codebase (unless a `/codebase` chose another); in a pull request, on the pull request's head.
 * What cannot be done (no codebase, a fork's pull request) is answered in the thread instead.
 */
export async function answerCodeHostRequest(
  context: ServiceContext,
  door: ChatDoorServices,
  client: CodeHostClient,
  settings: CodeHostSettings,
  request: CodeHostRequest,
  codebase?: RequestCodebase,
): Promise<RequestOutcome> {
  const address = { platform: request.platform, chatId: threadKey(request.repository.path, request.thread) };
  const sayInstead = async (markdown: string): Promise<RequestOutcome> => {
    await door.startReply(request.platform, requestKey(request), {
      kind: 'text',
      address,
      markdown,
      replyTo: request.trigger.kind === 'comment' ? request.trigger.id : undefined,
    });
    return 'answered';
  };
  if (codebase && 'problem' in codebase) return sayInstead(codebase.problem);
  if (codebase) {
    const place = await placeConversation(context, client, request, address, codebase.codebaseId);
    if (place.refusal) return sayInstead(place.refusal);
  }
  const isCommand = parseCommand(request.text).kind !== 'message';
  const text = isCommand
    ? request.text
    : withThreadContext(
        request,
        await client.recentComments(threadRef(request), CONTEXT_COMMENTS + 1),
        await client.botLogin(),
      );
  return receiveChatMessage(
    door,
    { source: request.platform, mode: settings.mode, botName: settings.botName },
    {
      address,
      user: { id: request.actor.login, name: request.actor.login },
      text,
      deliveryId: requestKey(request),
      messageId: request.trigger.kind === 'comment' ? request.trigger.id : undefined,
    },
  );
}

/**
 * Puts the thread's conversation on the codebase (once: a user's `/codebase` choice stays) and,
 * for a question or a workflow run in a pull request, in the pull request's worktree at its head.
 * A fork's pull request runs nothing unless the codebase's base branch opts in
 * (`allow_fork_pull_requests`); then its worktree is untrusted: nothing there gets secrets.
 */
async function placeConversation(
  context: ServiceContext,
  client: CodeHostClient,
  request: CodeHostRequest,
  address: ChatAddress,
  codebaseId: string,
): Promise<{ refusal?: string }> {
  const { knex } = context.db;
  const conversation = await chatConversation(context, { address });
  const onCodebase =
    (await setCodebaseIfUnset(knex, conversation.id, codebaseId)) || conversation.codebaseId === codebaseId;
  const codebase = await findCodebase(knex, codebaseId);
  if (request.thread.kind !== 'pull' || !codebase || !onCodebase) return {};
  const command = parseCommand(request.text);
  const runs = command.kind === 'command' && command.command.name === 'workflow run';
  // Other commands read nothing of the head.
  if (command.kind !== 'message' && !runs) return {};
  const head = await client.pullRequestHead(threadRef(request));
  if (head.fromFork && !context.config.forRepository(codebase.sourcePath).effective.allowForkPullRequests) {
    const what = request.platform === 'gitlab' ? 'merge request' : 'pull request';
    context.logger.info({
      event: 'code_host.fork_refused',
      platform: request.platform,
      repository: request.repository.path,
      number: request.thread.number,
      what: runs ? 'workflow' : 'message',
    });
    const fork = `comes from a fork, and ${codebase.name} does not let me work on forks' code.`;
    return {
      refusal:
        (runs ? `Workflows do not run on this ${what}: it ${fork} ` : `This ${what} ${fork} `) +
        'A maintainer can allow it (without secrets or env keys) with `allow_fork_pull_requests: true` ' +
        'in `.cairn/config.yaml` on the default branch.',
    };
  }
  // A run starts from the head this worktree is at (services/runs/prepare-run.ts), untrusted with it.
  const worktree = await pullRequestWorktree(context, codebase, request.thread.number, head);
  await attachEnvironment(knex, conversation.id, worktree);
  return {};
}

/**
 * Admits a request and, when its repository is a codebase already (every mention after the
 * first), answers it in the same go: one activity where a first mention takes three (the clone
 * waits in its own). Returns {@link NEEDS_CLONE} for an admitted request on a repository not yet cloned.
 */
export async function handleRequestOnRegisteredCodebase(
  context: ServiceContext,
  door: ChatDoorServices,
  client: CodeHostClient,
  settings: CodeHostSettings,
  request: CodeHostRequest,
): Promise<RequestOutcome | typeof NEEDS_CLONE> {
  const admitted = await admitCodeHostRequest(context, client, settings, request);
  if (admitted !== 'admitted') return admitted;
  const codebase = await registeredCodebaseForRequest(context, request);
  if (!codebase) return NEEDS_CLONE;
  return answerCodeHostRequest(context, door, client, settings, request, codebase);
}

/** Admits and answers in one go: the activity of code-host workflows started before the codebase step existed. */
export async function handleCodeHostRequest(
  context: ServiceContext,
  door: ChatDoorServices,
  client: CodeHostClient,
  settings: CodeHostSettings,
  request: CodeHostRequest,
): Promise<RequestOutcome> {
  const admitted = await admitCodeHostRequest(context, client, settings, request);
  if (admitted !== 'admitted') return admitted;
  return answerCodeHostRequest(context, door, client, settings, request);
}

function sameLogin(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

async function mayAsk(
  client: CodeHostClient,
  settings: CodeHostSettings,
  request: CodeHostRequest,
): Promise<boolean> {
  const list = settings.allowedUsers;
  if (list && list.length > 0) return list.includes(request.actor.login.toLowerCase());
  // Open access as the spec says, but never for strangers on a public repository: write access only.
  return client.canWrite(request.repository.path, request.actor);
}

function clip(text: string): string {
  return text.length > CONTEXT_CLIP ? `${text.slice(0, CONTEXT_CLIP)}…` : text;
}

/** The question with what the assistant needs to know of the thread: title, description, recent comments. */
export function withThreadContext(
  request: CodeHostRequest,
  comments: ThreadComment[],
  botLogin: string,
): string {
  const { thread, repository } = request;
  const what =
    thread.kind === 'pull' ? (request.platform === 'gitlab' ? 'merge request' : 'pull request') : 'issue';
  const others = comments
    // The asking comment is the question itself; the bot's own are its earlier answers' placeholders.
    .filter((comment) => !sameLogin(comment.author, botLogin) && comment.id !== request.trigger.id)
    .slice(-CONTEXT_COMMENTS);
  const lines = [
    `You were mentioned in ${repository.path} ${what} ${threadKey('', thread)}: "${thread.title}" (${thread.url}).`,
  ];
  if (thread.body.trim()) lines.push('', 'Description:', clip(thread.body.trim()));
  if (others.length > 0) {
    lines.push('', 'Recent comments:');
    for (const comment of others) lines.push(`- @${comment.author}: ${clip(comment.body.trim())}`);
  }
  lines.push('', `@${request.actor.login} asks:`, request.text || '(nothing more than the mention)');
  return lines.join('\n');
}
