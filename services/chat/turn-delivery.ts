import type { Knex } from 'knex';
import { readEventsAfter } from '../../db/repositories/events.js';
import type { ChatMessenger } from '../../domain/chat/chat-messenger.js';
import type { ChatTurnReply } from '../../domain/chat/chat-reply.js';
import {
  applyTurnEvent,
  batchStartText,
  emptyTurnView,
  finalText,
  streamingText,
  toolStatusLine,
  type TurnView,
} from '../../domain/chat/turn-view.js';
import type { ChatPosts } from './chat-posts.js';
import { pause, ThrottledEditor } from './throttled-editor.js';

export interface TurnDeliveryInput extends ChatTurnReply {
  placeholderId: string;
}

export interface ChatDeliveryDependencies {
  knex: Knex;
  messenger: ChatMessenger;
  /** The reply's messages, each posted once (by the reply workflow's id). */
  posts: ChatPosts;
  signal: AbortSignal;
  /** How often the journal is read for new events. */
  pollMs: number;
}

const EVENTS_PER_READ = 500;

/** The first message of a turn's answer: a placeholder the delivery then edits. */
export function placeholderText(input: ChatTurnReply): string {
  if (input.mode === 'batch') return batchStartText(input.botName, emptyTurnView(), input.queuedPosition);
  return input.queuedPosition === undefined
    ? '…'
    : `Queued: answering when a session is free (position ${input.queuedPosition}).`;
}

/**
 * Follows one turn in the conversation's journal and shows it in the chat: in stream mode the
 * placeholder is edited as text arrives (no more often than the platform allows); in batch mode
 * the starting line shows tool activity and the answer follows as new messages. Rebuilt from the
 * journal on every attempt, so a delivery that moved to another worker shows the same thing.
 */
export async function deliverTurn(deps: ChatDeliveryDependencies, input: TurnDeliveryInput): Promise<void> {
  const editor = new ThrottledEditor(
    deps.messenger,
    input.address,
    input.placeholderId,
    placeholderText(input),
    deps.signal,
  );
  const view = await followTurn(deps, input, editor);
  await finish(deps, input, view, editor);
}

async function followTurn(
  deps: ChatDeliveryDependencies,
  input: TurnDeliveryInput,
  editor: ThrottledEditor,
): Promise<TurnView> {
  let view = emptyTurnView();
  let cursor = input.eventId;
  for (;;) {
    deps.signal.throwIfAborted();
    const events = await readEventsAfter(deps.knex, input.conversationId, cursor, EVENTS_PER_READ);
    for (const event of events) {
      cursor = event.id;
      // The conversation was deleted: its turns will not run.
      if (event.type === 'conversation_deleted') return { ...view, end: 'cancelled' };
      if (event.payload.messageId === input.messageId) view = applyTurnEvent(view, event);
    }
    if (view.end) return view;
    await editor.show(progressText(input, view));
    if (events.length < EVENTS_PER_READ) await pause(deps.pollMs, deps.signal);
  }
}

function progressText(input: TurnDeliveryInput, view: TurnView): string {
  if (input.mode === 'stream') return streamingText(view, STREAM_PREVIEW_CHARS);
  return batchStartText(input.botName, view, input.queuedPosition);
}

/** Room for the preview of a streaming answer: one message of the smallest platform. */
const STREAM_PREVIEW_CHARS = 1_900;

async function finish(
  deps: ChatDeliveryDependencies,
  input: TurnDeliveryInput,
  view: TurnView,
  editor: ThrottledEditor,
): Promise<void> {
  const parts = deps.messenger.split(finalText(view));
  // Stream mode: the placeholder becomes the answer's first part; batch mode: it says it is done
  // and the whole answer follows, so the answer is a notification of its own.
  // A code host's tracking comment becomes the answer in both modes.
  const inPlace = input.mode === 'stream' || deps.messenger.answersInPlace === true;
  const [first, ...rest] = parts;
  const following = inPlace ? rest : parts;
  await editor.show(inPlace ? (first ?? '…') : doneLine(input.botName, view), {
    final: true,
  });
  for (const [index, part] of following.entries()) await deps.posts.ensure(`answer:${index}`, part);
}

function doneLine(botName: string, view: TurnView): string {
  const status = toolStatusLine(view);
  const verb = view.end === 'failed' ? 'failed' : view.end === 'cancelled' ? 'was cancelled' : 'answered';
  return status ? `${botName} ${verb} (${status.replace(/^⚙ /, '')}).` : `${botName} ${verb}.`;
}
