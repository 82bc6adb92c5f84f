import type { Message, Update } from 'grammy/types';
import type { ChatAddress, InboundChatMessage } from '../../domain/chat/chat-address.js';
import { runIdOfReasonPrompt } from '../../domain/chat/run-view.js';

/** The bot as Telegram knows it: group messages count only when they name it. */
export interface TelegramBotIdentity {
  id: number;
  username: string;
}

/**
 * The message Cairn acts on, or undefined for updates it leaves alone (photos, edits, joins,
 * group chatter not meant for the bot): those are ignored quietly.
 */
export function inboundFromUpdate(update: Update, bot: TelegramBotIdentity): InboundChatMessage | undefined {
  const message = update.message;
  if (!message?.text || !message.from || message.from.is_bot) return undefined;
  const text = reasonReply(message, bot) ?? addressedText(message, bot);
  if (text === undefined || text.trim() === '') return undefined;
  return {
    address: telegramAddress(message),
    user: { id: String(message.from.id), name: message.from.username ?? message.from.first_name },
    text,
    // Not the update_id: Telegram starts those again at random after a week without updates,
    // while a message id is unique in its chat for good.
    deliveryId: `${message.chat.id}:${message.message_id}`,
    messageId: String(message.message_id),
  };
}

/** A chat, or a forum topic of it: topics are conversations of their own, plain reply chains are not. */
export function telegramAddress(message: Message): ChatAddress {
  const topic = message.is_topic_message && message.message_thread_id !== undefined;
  return {
    platform: 'telegram',
    chatId: String(message.chat.id),
    ...(topic ? { threadId: String(message.message_thread_id) } : {}),
  };
}

/**
 * In a private chat every message is for the bot. In a group only commands, replies to the bot
 * and messages that @mention it are; the mention is taken out of the text.
 */
function addressedText(message: Message, bot: TelegramBotIdentity): string | undefined {
  const text = message.text ?? '';
  const command = /^\s*\/\w+(?:@(\w+))?/.exec(text);
  // `/status@OtherBot` in a group is for another bot.
  if (command?.[1] && command[1].toLowerCase() !== bot.username.toLowerCase()) return undefined;
  if (message.chat.type === 'private' || command) return text;
  if (message.reply_to_message?.from?.id === bot.id) return text;
  const mention = `@${bot.username}`;
  if (!text.toLowerCase().includes(mention.toLowerCase())) return undefined;
  return text.replace(new RegExp(escapeRegExp(mention), 'ig'), '').trim();
}

/** A reply to the bot's "why reject run …?" question rejects that run with the reply as the reason. */
function reasonReply(message: Message, bot: TelegramBotIdentity): string | undefined {
  const asked = message.reply_to_message;
  if (asked?.from?.id !== bot.id || !asked.text) return undefined;
  const runId = runIdOfReasonPrompt(asked.text);
  return runId ? `/reject ${runId} ${message.text ?? ''}` : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
