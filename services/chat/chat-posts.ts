import type { Knex } from 'knex';
import { findChatPost, recordChatPost } from '../../db/repositories/chat-posts.js';
import type { ChatAddress } from '../../domain/chat/chat-address.js';
import type { ChatMessageOptions, ChatMessenger } from '../../domain/chat/chat-messenger.js';

/**
 * Posts a reply's messages once: each is recorded by the reply and a slot ("placeholder",
 * "part:2", "gate:<event>") right after it is sent, and a retried delivery finds it instead of
 * posting again. A crash between sending and recording can leave one extra message (A.3).
 */
export class ChatPosts {
  constructor(
    private readonly knex: Knex,
    private readonly messenger: ChatMessenger,
    readonly address: ChatAddress,
    private readonly replyId: string,
  ) {}

  /** The slot's message: found, or sent now and recorded. `posted` says which. */
  async ensure(
    slot: string,
    markdown: string,
    options: ChatMessageOptions = {},
  ): Promise<{ messageId: string; posted: boolean }> {
    const known = await findChatPost(this.knex, this.replyId, slot);
    if (known) return { messageId: known, posted: false };
    const messageId = await this.messenger.send(this.address, markdown, options);
    await recordChatPost(this.knex, { replyId: this.replyId, slot, messageId });
    return { messageId, posted: true };
  }

  find(slot: string): Promise<string | undefined> {
    return findChatPost(this.knex, this.replyId, slot);
  }
}
