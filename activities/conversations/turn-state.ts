import type { Knex } from 'knex';
import { appendEvent } from '../../db/repositories/events.js';
import { deleteReplies, findMessage, transitionTurn } from '../../db/repositories/messages.js';
import { touchConversation } from '../../db/repositories/conversations.js';

export type TurnClaim =
  /** First attempt: the turn was queued and is now running. */
  | 'started'
  /** An earlier attempt died mid-turn: its partial output was removed and the turn runs again. */
  | 'restarted'
  /** Completed or failed already (a duplicate delivery): nothing to do. */
  | 'finished';

/** Takes a turn for this attempt; the compare-and-swap keeps two deliveries from both starting it. */
export async function claimTurn(knex: Knex, messageId: number): Promise<TurnClaim> {
  if (await transitionTurn(knex, messageId, ['queued'], 'running')) return 'started';
  const message = await findMessage(knex, messageId);
  if (!message || message.turnStatus !== 'running') return 'finished';
  await deleteReplies(knex, messageId);
  return 'restarted';
}

export type TurnEnd = 'completed' | 'failed';

/**
 * Ends a running turn and announces it in one transaction: the status and the event agree even
 * if the process dies between them. False when the turn was not running (already ended).
 */
export async function endTurn(
  knex: Knex,
  input: { conversationId: string; messageId: number; end: TurnEnd; details: Record<string, unknown> },
): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const changed = await transitionTurn(trx, input.messageId, ['running', 'queued'], input.end);
    if (!changed) return false;
    await touchConversation(trx, input.conversationId);
    await appendEvent(trx, {
      streamKey: input.conversationId,
      type: input.end === 'completed' ? 'turn_completed' : 'turn_failed',
      payload: { messageId: input.messageId, ...input.details },
    });
    return true;
  });
}
