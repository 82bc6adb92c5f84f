import type { ChatAddress, InboundChatMessage } from '../../domain/chat/chat-address.js';

/** The fields of a Slack `message` or `app_mention` event that the door reads. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  channel: string;
  channel_type?: string;
}

/** The bot as Slack knows it: its user id (what mentions name) and its workspace. */
export interface SlackBotIdentity {
  userId: string;
  teamId: string;
}

/** Why a message event is, or is not, for the bot. */
export type SlackAddressing = 'direct' | 'mention' | 'thread';

/**
 * The message Cairn acts on, or undefined for events it leaves alone (edits, joins, other bots,
 * channel chatter). A direct message is for the bot; in a channel a mention starts (or continues)
 * a thread that is one conversation, and a reply in such a thread counts once the thread is bound
 * (`addressing: 'thread'` asks the caller to check that).
 */
export function inboundFromSlackEvent(
  event: SlackMessageEvent,
  bot: SlackBotIdentity,
): { inbound: InboundChatMessage; addressing: SlackAddressing } | undefined {
  if (event.subtype !== undefined || event.bot_id !== undefined || !event.user) return undefined;
  if (event.user === bot.userId || !event.text) return undefined;
  const mention = `<@${bot.userId}>`;
  const mentioned = event.text.includes(mention);
  const direct = event.channel_type === 'im';
  // In a channel Slack sends a mention twice (app_mention and message): the app_mention answers.
  if (event.type === 'message' && mentioned && !direct) return undefined;
  const addressing: SlackAddressing = direct ? 'direct' : mentioned ? 'mention' : 'thread';
  if (addressing === 'thread' && event.thread_ts === undefined) return undefined;
  const text = slackTextToPlain(event.text.split(mention).join(' ')).trim();
  if (text === '') return undefined;
  const threadId = direct ? event.thread_ts : (event.thread_ts ?? event.ts);
  const address: ChatAddress = {
    platform: 'slack',
    chatId: event.channel,
    ...(threadId ? { threadId } : {}),
  };
  return {
    addressing,
    inbound: {
      address,
      user: { id: event.user, name: event.user },
      text,
      // A message's ts is unique in its channel for good, and the same in Slack's resends and in
      // the second event of a mention, so both find the first one's record.
      deliveryId: `${event.channel}:${event.ts}`,
      messageId: event.ts,
    },
  };
}

/**
 * Slack's wire text back to what the user typed: links `<url|label>` and `<url>` become the URL
 * (so `/codebase <https://…>` clones the URL), mentions `<@U1>` `@U1`, and the three escapes undone.
 */
export function slackTextToPlain(text: string): string {
  return text
    .replace(/<([^<>|]+)(?:\|([^<>]*))?>/g, (_whole, target: string, label: string | undefined) => {
      if (target.startsWith('@') || target.startsWith('#')) return label ? `${target[0]}${label}` : target;
      if (target.startsWith('!')) return `@${target.slice(1).split('^')[0]}`;
      return target;
    })
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
