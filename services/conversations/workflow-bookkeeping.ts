import { findConversation, setTitleIfUnset } from '../../db/repositories/conversations.js';
import { appendEvent } from '../../db/repositories/events.js';
import { findMessage, openTurnIds } from '../../db/repositories/messages.js';
import type {
  AbandonTurnInput,
  ConversationState,
  TurnInput,
} from '../../domain/conversations/conversation-workflow.js';
import { generateTitle } from '../../infra/assistants/generate-title.js';
import type { ServiceContext } from '../context.js';
import { endTurn } from './turn-state.js';

/** What the conversation workflow owes: its unfinished turns, and whether it still needs a title. */
export async function conversationState(
  deps: ServiceContext,
  conversationId: string,
): Promise<ConversationState> {
  const conversation = await findConversation(deps.db.knex, conversationId);
  if (!conversation) return { openTurnIds: [], needsTitle: false };
  return {
    openTurnIds: await openTurnIds(deps.db.knex, conversationId),
    needsTitle: conversation.title === null,
  };
}

/** Names a conversation after its first message; a title set by PATCH meanwhile is kept. */
export async function generateConversationTitle(deps: ServiceContext, input: TurnInput): Promise<void> {
  const { knex } = deps.db;
  const [conversation, message] = await Promise.all([
    findConversation(knex, input.conversationId),
    findMessage(knex, input.messageId),
  ]);
  if (!conversation || !message || conversation.title !== null) return;
  const config = deps.config.global();
  const title = await generateTitle(message.content, {
    environment: deps.environment,
    config: config.effective,
    logger: deps.logger,
    home: deps.home,
    processEnv: deps.env,
  });
  await knex.transaction(async (trx) => {
    if (await setTitleIfUnset(trx, conversation.id, title)) {
      await appendEvent(trx, { streamKey: conversation.id, type: 'title', payload: { title } });
    }
  });
}

/** The last resort after every attempt of a turn failed: the user sees it failed, not a hang. */
/** A turn cancelled while it waited out a usage limit: no attempt is running to record its end. */
export async function cancelWaitingTurn(
  deps: ServiceContext,
  input: { conversationId: string; messageId: number },
): Promise<void> {
  await endTurn(deps.db.knex, { ...input, end: 'cancelled', details: { reason: 'cancelled' } });
}

export async function abandonTurn(deps: ServiceContext, input: AbandonTurnInput): Promise<void> {
  deps.logger.error({ event: 'conversation.turn_abandoned', ...input });
  await endTurn(deps.db.knex, {
    conversationId: input.conversationId,
    messageId: input.messageId,
    end: 'failed',
    details: { code: 'turn_abandoned', error: `The turn failed after several attempts: ${input.reason}` },
  });
}
