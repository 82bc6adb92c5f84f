// Where a chat message came from and where its answer goes, the same shape for every platform.

export const CHAT_PLATFORMS = ['telegram', 'discord', 'slack'] as const;
export type ChatPlatform = (typeof CHAT_PLATFORMS)[number];

/** Code hosts answer in an issue's or pull request's comments, through the same reply machinery. */
export const CODE_HOST_PLATFORMS = ['github', 'gitlab'] as const;
export type CodeHostPlatform = (typeof CODE_HOST_PLATFORMS)[number];

/** Every platform a door answers on: the chats and the code hosts. */
export type ReplyPlatform = ChatPlatform | CodeHostPlatform;

/** A place answers go: a Telegram chat (or forum topic), a Discord channel or thread, a Slack thread. */
export interface ChatAddress {
  platform: ReplyPlatform;
  chatId: string;
  /** Telegram forum topic, Slack thread_ts; Discord threads are channels of their own. */
  threadId?: string;
}

/** Who wrote: the platform's user id (what *_ALLOWED_USER_IDS lists) and a name for people. */
export interface ChatUser {
  id: string;
  name: string;
}

/** One text message received from a chat, with the platform's id for deduplication. */
export interface InboundChatMessage {
  address: ChatAddress;
  user: ChatUser;
  text: string;
  /** The platform's id of this delivery (Telegram update_id, Slack event_id, Discord message id). */
  deliveryId: string;
  /** The platform's id of the message, to answer it as a reply. */
  messageId?: string;
}

/** The key a chat's conversation is bound under: one conversation per chat or thread. */
export function chatKey(address: ChatAddress): string {
  return address.threadId === undefined ? address.chatId : `${address.chatId}/${address.threadId}`;
}

/** Who acted, for the runs' audit trail: `telegram:12345`. */
export function chatActor(platform: ReplyPlatform, user: ChatUser): string {
  return `${platform}:${user.id}`;
}
