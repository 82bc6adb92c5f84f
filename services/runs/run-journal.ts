import type { Knex } from 'knex';
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
 * Records a run event: one journal row that the run's history, its conversation's stream and the
 * dashboard stream all read, so they never disagree.
 */
export async function recordRunEvent(knex: Knex, input: RunEventInput): Promise<RunEvent> {
  return appendRunEvent(knex, input);
}
