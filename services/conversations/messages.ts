import type { Knex } from 'knex';
import { touchLiveConversation, type Conversation } from '../../db/repositories/conversations.js';
import { appendEvent } from '../../db/repositories/events.js';
import { appendUserMessageAndEvent, type UserMessageIntake } from '../../db/repositories/message-intake.js';
import { nowIso } from '../../db/rows.js';
import {
  runningTurnId,
  appendMessage,
  listMessagesBefore,
  turnPlaceFigures,
  type Message,
  type TurnPlaceFigures,
} from '../../db/repositories/messages.js';
import { messageWire } from '../../domain/conversations/wire.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import type { DispatchTurn } from './conversation-client.js';
import { conversationDeleted, getConversation, getLiveConversation } from './conversations.js';
import { readKeysetPage, type KeysetPage } from '../keyset-page.js';

/** One page of a conversation's messages, newest first, strictly older than `beforeId` when given. */
export async function listMessages(
  context: ServiceContext,
  ref: string,
  request: { beforeId?: number; limit: number },
): Promise<KeysetPage<Message, number>> {
  const conversation = await getConversation(context, ref);
  return readKeysetPage(
    request.limit,
    (limit) => listMessagesBefore(context.db.reader, conversation.id, { beforeId: request.beforeId, limit }),
    (message) => message.id,
  );
}

export interface TurnDispatch {
  /** Hands the stored message to its conversation's workflow (conversation-client.ts). */
  dispatch: DispatchTurn;
  /** MAX_CONCURRENT_CONVERSATIONS, to tell a caller whether its turn starts or waits. */
  maxConcurrent: number;
}

/** Whether a turn starts now, or waits behind an earlier turn of its conversation or for a free session. */
export type TurnPlace = { status: 'started'; position: 0 } | { status: 'queued'; position: number };

export interface PostedMessage {
  conversation: Conversation;
  message: Message;
  /** The journal id of the message's `message` event: the turn's events follow it. */
  eventId: number;
  place: TurnPlace;
}

/** More writes that belong with the stored message (a door's record of the delivery it came in). */
export type AlsoWrite = (trx: Knex.Transaction, message: Message) => Promise<void>;

/** Stores the message and its `message` event together: once accepted, it is never lost. */
async function storeUserMessage(
  context: ServiceContext,
  conversation: Conversation,
  content: string,
  alsoWrite?: AlsoWrite,
): Promise<{ message: Message; eventId: number; place?: TurnPlaceFigures }> {
  const stored =
    context.db.dialect === 'postgres' && !alsoWrite
      ? await appendUserMessageAndEvent(context.db.knex, userMessageIntake(conversation.id, content))
      : await storeInTransaction(context, conversation, content, alsoWrite);
  // Deleted between the read and the write.
  if (!stored) throw conversationDeleted(conversation);
  return stored;
}

/** A user's message as the one-statement intake writes it, with its wire form around the id. */
function userMessageIntake(conversationId: string, content: string): UserMessageIntake {
  const createdAt = nowIso();
  const wire = JSON.stringify(
    messageWire({
      id: 0,
      conversationId,
      role: 'user',
      content,
      metadata: {},
      turnStatus: 'queued',
      replyToMessageId: null,
      createdAt,
    }),
  );
  const leadingId = '{"id":0,';
  if (!wire.startsWith(leadingId))
    throw new Error('The wire form of a message no longer starts with its id.');
  return { conversationId, content, createdAt, wireAfterId: wire.slice(leadingId.length, -1) };
}

async function storeInTransaction(
  context: ServiceContext,
  conversation: Conversation,
  content: string,
  alsoWrite?: AlsoWrite,
): Promise<{ message: Message; eventId: number } | undefined> {
  return context.db.knex.transaction(async (trx) => {
    if (!(await touchLiveConversation(trx, conversation.id))) return undefined;
    const message = await appendMessage(trx, {
      conversationId: conversation.id,
      role: 'user',
      content,
      turnStatus: 'queued',
    });
    const event = await appendEvent(trx, {
      streamKey: conversation.id,
      type: 'message',
      payload: { messageId: message.id, message: messageWire(message) },
    });
    await alsoWrite?.(trx, message);
    return { message, eventId: event.id };
  });
}

function placeInLine(figures: TurnPlaceFigures, maxConcurrent: number): TurnPlace {
  const { ahead, active, queuedBefore } = figures;
  if (ahead === 0 && active < maxConcurrent) return { status: 'started', position: 0 };
  return { status: 'queued', position: queuedBefore + 1 };
}

/**
 * A user's message: stored with its event, placed in line, then handed to the conversation's
 * workflow. The answer waits for the database, never for Temporal.
 */
export async function postMessage(
  context: ServiceContext,
  turns: TurnDispatch,
  ref: string,
  content: string,
  alsoWrite?: AlsoWrite,
): Promise<PostedMessage> {
  const conversation = await getLiveConversation(context, ref);
  const stored = await storeUserMessage(context, conversation, content, alsoWrite);
  const { message, eventId } = stored;
  // Placed before the hand-over, so the turn starting meanwhile cannot count against itself.
  // Through the reader where the store did not count it: the message's transaction has committed.
  const figures =
    stored.place ?? (await turnPlaceFigures(context.db.reader, message.conversationId, message.id));
  const place = placeInLine(figures, turns.maxConcurrent);
  // After this turn of the event loop: the message is stored, so the caller's answer (written in
  // this turn) need not wait for Temporal, nor for the client's work of starting the call. A
  // hand-over that fails is logged and the worker's turn sweep starts the workflow later.
  setImmediate(() => handOver(context, turns, conversation.id, message.id));
  return { conversation, message, eventId, place };
}

function handOver(
  context: ServiceContext,
  turns: TurnDispatch,
  conversationId: string,
  messageId: number,
): void {
  turns.dispatch(conversationId, messageId).catch((error: unknown) =>
    context.logger.warn({
      event: 'conversation.dispatch_deferred',
      conversationId,
      messageId,
      err: (error as Error).message,
    }),
  );
}

/** Tells a conversation's workflow to cancel the turn of one message. */
export type CancelTurn = (conversationId: string, messageId: number) => Promise<void>;

/**
 * Cancels the turn running now in a conversation: its assistant is stopped, its output so far
 * kept, and it ends `cancelled` (event `turn_cancelled`); the next message is answered as usual.
 */
export async function cancelRunningTurn(
  context: ServiceContext,
  ref: string,
  cancel: CancelTurn,
): Promise<{ conversationId: string; messageId: number }> {
  const conversation = await getConversation(context, ref);
  const messageId = await runningTurnId(context.db.knex, conversation.id);
  if (messageId === undefined) {
    throw ServiceError.conflict('No turn of this conversation is running.', undefined, 'no_turn_running');
  }
  await cancel(conversation.id, messageId);
  return { conversationId: conversation.id, messageId };
}
