import { bindChat, boundConversationId } from '../../db/repositories/chat-bindings.js';
import {
  createConversation,
  findConversation,
  type Conversation,
} from '../../db/repositories/conversations.js';
import {
  findInboundDelivery,
  recordInboundDelivery,
  setInboundReply,
} from '../../db/repositories/inbound-deliveries.js';
import {
  chatActor,
  chatKey,
  type ChatAddress,
  type InboundChatMessage,
} from '../../domain/chat/chat-address.js';
import type { ChatReplyInput, ChatStreamingMode } from '../../domain/chat/chat-reply.js';
import { parseCommand } from '../../domain/commands/command-grammar.js';
import { runCommand, type CommandServices } from '../commands/run-command.js';
import { chatMessages } from './chat-metrics.js';
import { postMessage, type TurnDispatch } from '../conversations/messages.js';
import type { ServiceContext } from '../context.js';

/** Starts the durable reply of one delivery; starting it again for the same delivery does nothing. */
export type StartChatReply = (source: string, deliveryId: string, input: ChatReplyInput) => Promise<void>;

/** What the chat doors act through: the same services as the API, and the reply workflow. */
export interface ChatDoorServices {
  commands: CommandServices;
  turns: TurnDispatch;
  startReply: StartChatReply;
}

/** How one adapter receives: its bot, its allow-list, its delivery mode. */
export interface ChatReceiverSettings {
  /** Names the bot in delivery records: `telegram:<bot id>` (update ids are per bot). */
  source: string;
  /** *_ALLOWED_USER_IDS; undefined or empty: open access, as the spec says. */
  allowedUserIds?: readonly string[];
  mode: ChatStreamingMode;
  botName: string;
}

export type ReceiveOutcome = 'message' | 'command' | 'refused' | 'duplicate';

class DuplicateDelivery extends Error {}

/**
 * One message from a chat: recorded by the platform's delivery id and acted on once. A message is
 * stored in the chat's conversation in the same transaction as its record, so a redelivery after a
 * crash neither loses it nor stores it twice; its reply is a workflow named after the delivery.
 * Commands run at most once: they are recorded before they run.
 */
export async function receiveChatMessage(
  door: ChatDoorServices,
  settings: ChatReceiverSettings,
  inbound: InboundChatMessage,
): Promise<ReceiveOutcome> {
  const outcome = await receiveOnce(door, settings, inbound);
  chatMessages.inc({ platform: inbound.address.platform, outcome });
  return outcome;
}

async function receiveOnce(
  door: ChatDoorServices,
  settings: ChatReceiverSettings,
  inbound: InboundChatMessage,
): Promise<ReceiveOutcome> {
  const context = door.commands.context;
  const { knex } = context.db;
  const earlier = await findInboundDelivery(knex, settings.source, inbound.deliveryId);
  if (earlier) {
    // Stored, but the process may have died before its reply started: start it (or find it started).
    if (earlier.outcome === 'message' && earlier.conversationId && earlier.messageId !== null) {
      await startTurnReply(door, settings, inbound, {
        conversationId: earlier.conversationId,
        messageId: earlier.messageId,
      });
    } else if (earlier.reply) {
      await door.startReply(settings.source, inbound.deliveryId, earlier.reply as ChatReplyInput);
    }
    return 'duplicate';
  }
  if (!allowed(settings, inbound.user.id)) return refuse(door, settings, inbound);

  const conversation = await chatConversation(context, inbound);
  const reply = await runCommandOnce(door, settings, inbound, conversation);
  if (reply !== undefined) return reply;
  try {
    const posted = await postMessage(
      context,
      door.turns,
      conversation.id,
      inbound.text,
      async (trx, message) => {
        const recorded = await recordInboundDelivery(trx, {
          source: settings.source,
          deliveryId: inbound.deliveryId,
          outcome: 'message',
          conversationId: conversation.id,
          messageId: message.id,
        });
        if (!recorded) throw new DuplicateDelivery();
      },
    );
    await door.startReply(settings.source, inbound.deliveryId, {
      kind: 'turn',
      address: inbound.address,
      conversationId: conversation.id,
      messageId: posted.message.id,
      eventId: posted.eventId,
      mode: settings.mode,
      botName: settings.botName,
      queuedPosition: posted.place.status === 'queued' ? posted.place.position : undefined,
      replyTo: inbound.messageId,
    });
    return 'message';
  } catch (error) {
    // The same delivery handled at the same time by another receiver: that one answers it.
    if (error instanceof DuplicateDelivery) return 'duplicate';
    throw error;
  }
}

function allowed(settings: ChatReceiverSettings, userId: string): boolean {
  const list = settings.allowedUserIds;
  return !list || list.length === 0 || list.includes(userId);
}

async function refuse(
  door: ChatDoorServices,
  settings: ChatReceiverSettings,
  inbound: InboundChatMessage,
): Promise<ReceiveOutcome> {
  const { knex } = door.commands.context.db;
  const reply: ChatReplyInput = {
    kind: 'text',
    address: inbound.address,
    markdown: `You are not allowed to use this bot. Your user id is ${inbound.user.id}: ask its operator to allow it.`,
    replyTo: inbound.messageId,
  };
  const delivery = {
    source: settings.source,
    deliveryId: inbound.deliveryId,
    outcome: 'refused' as const,
    reply,
  };
  if (!(await recordInboundDelivery(knex, delivery))) return 'duplicate';
  door.commands.context.logger.info({
    event: 'chat.refused',
    platform: inbound.address.platform,
    userId: inbound.user.id,
  });
  await door.startReply(settings.source, inbound.deliveryId, reply);
  return 'refused';
}

/** Recorded first, then run: a crash in between loses the command rather than running it twice. */
async function runCommandOnce(
  door: ChatDoorServices,
  settings: ChatReceiverSettings,
  inbound: InboundChatMessage,
  conversation: Conversation,
): Promise<ReceiveOutcome | undefined> {
  // Parsed before anything is recorded: a path like /home/me/app is a message, not a command.
  if (parseCommand(inbound.text).kind === 'message') return undefined;
  const { knex } = door.commands.context.db;
  const caller = {
    conversationId: conversation.id,
    actor: chatActor(inbound.address.platform, inbound.user),
  };
  const claimed = await recordInboundDelivery(knex, {
    source: settings.source,
    deliveryId: inbound.deliveryId,
    outcome: 'command',
    conversationId: conversation.id,
  });
  if (!claimed) return 'duplicate';
  const reply = await runCommand(door.commands, caller, inbound.text);
  if (!reply) throw new Error('a parsed command ran as a message');
  if (reply.conversation) {
    await bindChat(knex, {
      platform: inbound.address.platform,
      chatKey: chatKey(inbound.address),
      conversationId: reply.conversation.id,
    });
  }
  const answer = { address: inbound.address, markdown: reply.text, replyTo: inbound.messageId };
  // A run started here reports its progress and gates here.
  const startedRun = reply.command === 'workflow run' && reply.ok && reply.runId;
  const replyInput: ChatReplyInput = startedRun
    ? { kind: 'run', ...answer, runId: startedRun }
    : { kind: 'text', ...answer };
  // Kept first: if the reply cannot start now (Temporal away), the redelivery starts it.
  await setInboundReply(knex, settings.source, inbound.deliveryId, replyInput);
  await door.startReply(settings.source, inbound.deliveryId, replyInput);
  return 'command';
}

/** The chat's conversation: the one it is bound to, or a new one on its first message (or after a delete). */
export async function chatConversation(
  context: ServiceContext,
  inbound: Pick<InboundChatMessage, 'address'>,
): Promise<Conversation> {
  const { knex } = context.db;
  const platform = inbound.address.platform;
  const key = chatKey(inbound.address);
  const boundId = await boundConversationId(knex, platform, key);
  const bound = boundId ? await findConversation(knex, boundId) : undefined;
  if (bound && !bound.deletedAt) return bound;
  const fresh = await createConversation(knex, { platform, codebaseId: bound?.codebaseId ?? null });
  await bindChat(knex, { platform, chatKey: key, conversationId: fresh.id });
  return fresh;
}

async function startTurnReply(
  door: ChatDoorServices,
  settings: ChatReceiverSettings,
  inbound: InboundChatMessage,
  turn: { conversationId: string; messageId: number },
): Promise<void> {
  await door.startReply(settings.source, inbound.deliveryId, {
    kind: 'turn',
    address: inbound.address,
    ...turn,
    // Rare (a crash between storing and starting): the delivery reads the conversation from its start.
    eventId: 0,
    mode: settings.mode,
    botName: settings.botName,
    replyTo: inbound.messageId,
  });
}

/** Whether a chat or thread already talks to a conversation: replies in a thread count only then. */
export async function chatIsBound(context: ServiceContext, address: ChatAddress): Promise<boolean> {
  return (await boundConversationId(context.db.knex, address.platform, chatKey(address))) !== undefined;
}
