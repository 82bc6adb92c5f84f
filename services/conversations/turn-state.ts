import type { Knex } from 'knex';
import { appendEvent } from '../../db/repositories/events.js';
import { deleteReplies } from '../../db/repositories/messages.js';
import { touchConversation } from '../../db/repositories/conversations.js';
import { toNumber } from '../../db/rows.js';

export type TurnClaim =
  /** First attempt: the turn was queued and is now running. */
  | 'started'
  /** An earlier attempt died mid-turn: its partial output was removed and the turn runs again. */
  | 'restarted'
  /** Completed or failed already, or taken by a later attempt: nothing to do. */
  | 'finished';

/** The attempt of a turn: its user message, and Temporal's attempt number. */
export interface TurnOwner {
  messageId: number;
  attempt: number;
}

/** Thrown by writes of an attempt that no longer owns its turn (a later attempt took it over). */
export class TurnSuperseded extends Error {
  override readonly name = 'TurnSuperseded';
  constructor(readonly owner: TurnOwner) {
    super(`attempt ${owner.attempt} of the turn of message ${owner.messageId} was superseded`);
  }
}

/**
 * Takes the turn for this attempt. A later attempt takes it from an earlier one (which died, or
 * lost touch with Temporal) and removes that attempt's partial output; from then on the earlier
 * attempt's writes are refused, because each write checks ownership in its own transaction.
 */
export async function claimTurn(knex: Knex, owner: TurnOwner): Promise<TurnClaim> {
  const { messageId, attempt } = owner;
  const started = await knex('messages')
    .where({ id: messageId, turn_status: 'queued' })
    .update({ turn_status: 'running', turn_attempt: attempt });
  if (started > 0) return 'started';
  const row = (await knex('messages')
    .select('turn_status', 'turn_attempt')
    .where('id', messageId)
    .first()) as { turn_status: string | null; turn_attempt: unknown } | undefined;
  if (!row || row.turn_status !== 'running') return 'finished';
  const current = row.turn_attempt === null ? 0 : toNumber(row.turn_attempt);
  if (current >= attempt) return 'finished';
  const taken = await knex('messages')
    .where({ id: messageId, turn_status: 'running', turn_attempt: current === 0 ? null : current })
    .update({ turn_attempt: attempt });
  if (taken === 0) return 'finished';
  await deleteReplies(knex, messageId);
  return 'restarted';
}

/**
 * Runs `write` in a transaction that first locks the turn's row and checks this attempt still
 * owns it; throws TurnSuperseded otherwise. Every write of a running turn goes through here.
 */
export async function asTurnOwner<T>(
  knex: Knex,
  owner: TurnOwner,
  write: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return knex.transaction(async (trx) => {
    const owned = await trx('messages')
      .select('id')
      .where({ id: owner.messageId, turn_status: 'running', turn_attempt: owner.attempt })
      .forUpdate()
      .first();
    if (!owned) throw new TurnSuperseded(owner);
    return write(trx);
  });
}

export type TurnEnd = 'completed' | 'failed' | 'cancelled';

const END_EVENTS: Record<TurnEnd, string> = {
  completed: 'turn_completed',
  failed: 'turn_failed',
  cancelled: 'turn_cancelled',
};

/**
 * Ends a turn and announces it in one transaction: the status and the event agree even if the
 * process dies between them. With an attempt, only that attempt may end it; without one (the
 * workflow giving up on a turn) any unfinished turn ends. False when it had ended already.
 */
export async function endTurn(
  knex: Knex,
  input: {
    conversationId: string;
    messageId: number;
    attempt?: number;
    end: TurnEnd;
    details: Record<string, unknown>;
    /** More writes that belong with the end (the provider session to resume next time). */
    alsoWrite?: (trx: Knex.Transaction) => Promise<void>;
  },
): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const query = trx('messages').where('id', input.messageId).whereIn('turn_status', ['running', 'queued']);
    if (input.attempt !== undefined) query.andWhere('turn_attempt', input.attempt);
    const changed = await query.update({ turn_status: input.end });
    if (!changed) return false;
    await input.alsoWrite?.(trx);
    await touchConversation(trx, input.conversationId);
    await appendEvent(trx, {
      streamKey: input.conversationId,
      type: END_EVENTS[input.end],
      payload: { messageId: input.messageId, ...input.details },
    });
    return true;
  });
}
