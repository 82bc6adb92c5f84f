import type { Logger } from '../config/logger.js';
import type { Database } from '../db/connection.js';
import {
  conversationsWaitingSince,
  conversationsWithOpenTurns,
  openTurnIds,
} from '../db/repositories/messages.js';
import {
  conversationWorkflowRunning,
  turnDispatcher,
  type TurnDispatchOptions,
} from '../services/conversations/conversation-client.js';
import { runPeriodically } from './periodic.js';

export interface TurnSweeperOptions extends TurnDispatchOptions {
  db: Database;
  logger: Logger;
  intervalMs?: number;
  /** A running workflow whose conversation has waited this long with nothing running is woken. */
  wakeAfterMs?: number;
}

/**
 * The API stores a message before it signals, so a message whose signal failed (Temporal briefly
 * unreachable) is still owed. This starts the workflow of every conversation that owes a turn and
 * has none, and wakes a running one that has left a turn waiting with nothing running. Signals
 * are idempotent: a workflow that already knows the turn ignores them. Returns how many it
 * started or woke.
 */
export async function sweepOpenTurns(options: TurnSweeperOptions): Promise<number> {
  const { knex } = options.db;
  const dispatch = turnDispatcher(options);
  const cutoff = new Date(Date.now() - (options.wakeAfterMs ?? 60_000)).toISOString();
  const waiting = new Set(await conversationsWaitingSince(knex, cutoff));
  let dispatched = 0;
  for (const conversationId of await conversationsWithOpenTurns(knex)) {
    const running = await conversationWorkflowRunning(options.client, conversationId);
    if (running && !waiting.has(conversationId)) continue;
    const [first] = await openTurnIds(knex, conversationId);
    if (first === undefined) continue;
    await dispatch(conversationId, first);
    dispatched += 1;
  }
  if (dispatched > 0)
    options.logger.info({ event: 'conversation.turns_dispatched', conversations: dispatched });
  return dispatched;
}

/** Sweeps at start and then periodically until stopped. */
export function startTurnSweeper(options: TurnSweeperOptions): { stop(): Promise<void> } {
  return runPeriodically(() => sweepOpenTurns(options), {
    intervalMs: options.intervalMs ?? 60_000,
    logger: options.logger,
    failureEvent: 'conversation.sweep_failed',
  });
}
