import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/connection.js';
import { conversationsWithOpenTurns, openTurnIds } from '../db/repositories/messages.js';
import { conversationWorkflowId } from '../domain/conversations/conversation-workflow.js';
import { turnDispatcher, type TurnDispatchOptions } from '../api/core/conversations/turn-dispatch.js';

export interface TurnSweeperOptions extends TurnDispatchOptions {
  db: Database;
  logger: Logger;
  intervalMs?: number;
}

async function isRunning(client: Client, workflowId: string): Promise<boolean> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    return description.status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * Starts the workflow of every conversation that owes a turn but has none running: the API
 * stores a message before it signals, so a message whose signal failed (Temporal briefly down)
 * is still answered. Returns how many workflows it started.
 */
export async function sweepOpenTurns(options: TurnSweeperOptions): Promise<number> {
  const dispatch = turnDispatcher(options);
  let started = 0;
  for (const conversationId of await conversationsWithOpenTurns(options.db.knex)) {
    if (await isRunning(options.client, conversationWorkflowId(conversationId))) continue;
    const [first] = await openTurnIds(options.db.knex, conversationId);
    if (first === undefined) continue;
    await dispatch(conversationId, first);
    started += 1;
  }
  if (started > 0) options.logger.info({ event: 'conversation.turns_resumed', conversations: started });
  return started;
}

/** Sweeps at start and then periodically until stopped. */
export function startTurnSweeper(options: TurnSweeperOptions): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = sweepOpenTurns(options).catch((error: unknown) => {
      options.logger.warn({ event: 'conversation.sweep_failed', err: (error as Error).message });
    });
  };
  sweep();
  const timer = setInterval(sweep, options.intervalMs ?? 60_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
