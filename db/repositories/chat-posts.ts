import type { Knex } from 'knex';
import { nowIso } from '../rows.js';

/** The message a reply posted for `slot`, if it did. */
export async function findChatPost(knex: Knex, replyId: string, slot: string): Promise<string | undefined> {
  const row = (await knex('chat_posts').select('message_id').where({ reply_id: replyId, slot }).first()) as
    { message_id: string } | undefined;
  return row?.message_id;
}

/** Records a posted message right after posting it; a second record of the slot keeps the first. */
export async function recordChatPost(
  knex: Knex,
  post: { replyId: string; slot: string; messageId: string },
): Promise<void> {
  await knex('chat_posts')
    .insert({ reply_id: post.replyId, slot: post.slot, message_id: post.messageId, created_at: nowIso() })
    .onConflict(['reply_id', 'slot'])
    .ignore();
}

/** Forgets the posts of replies older than `before`: they are long finished. */
export async function purgeChatPosts(knex: Knex, before: string): Promise<number> {
  return knex('chat_posts').where('created_at', '<', before).delete();
}
