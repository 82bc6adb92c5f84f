import type { Knex } from 'knex';
import { appendEvents, DASHBOARD_STREAM } from '../../db/repositories/events.js';
import { appendRunEvent, type RunEvent } from '../../db/repositories/run-events.js';

export interface RunEventInput {
  runId: string;
  /** The run's conversation: its stream shows the run too. */
  conversationId: string | null;
  type: string;
  nodeId?: string | null;
  actor?: string | null;
  payload?: Record<string, unknown>;
}

/**
 * Records a run event in the run's history and in the journal: the conversation's stream and
 * the dashboard stream, in one transaction, so the three never disagree.
 */
export async function recordRunEvent(knex: Knex, input: RunEventInput): Promise<RunEvent> {
  const write = async (trx: Knex) => {
    const event = await appendRunEvent(trx, input);
    const payload = {
      runId: input.runId,
      ...(input.nodeId ? { nodeId: input.nodeId } : {}),
      ...(input.actor ? { actor: input.actor } : {}),
      ...input.payload,
    };
    const streams = input.conversationId ? [input.conversationId, DASHBOARD_STREAM] : [DASHBOARD_STREAM];
    await appendEvents(
      trx,
      streams.map((streamKey) => ({ streamKey, type: input.type, payload })),
    );
    return event;
  };
  return knex.isTransaction ? write(knex) : knex.transaction(write);
}
