import type { Knex } from 'knex';
import { nowIso } from '../rows.js';

/** The conversation a chat talks to now. */
export async function boundConversationId(
  knex: Knex,
  platform: string,
  chatKey: string,
): Promise<string | undefined> {
  const row = (await knex('chat_bindings')
    .select('conversation_id')
    .where({ platform, chat_key: chatKey })
    .first()) as { conversation_id: string } | undefined;
  return row?.conversation_id;
}

/** Points a chat at a conversation (its first, or the one /new or /codebase moved it to). */
export async function bindChat(
  knex: Knex,
  binding: { platform: string; chatKey: string; conversationId: string },
): Promise<void> {
  await knex('chat_bindings')
    .insert({
      platform: binding.platform,
      chat_key: binding.chatKey,
      conversation_id: binding.conversationId,
      updated_at: nowIso(),
    })
    .onConflict(['platform', 'chat_key'])
    .merge(['conversation_id', 'updated_at']);
}
