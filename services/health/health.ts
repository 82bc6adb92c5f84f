import { countTurns } from '../../db/repositories/messages.js';
import { countTurnsAndRuns } from '../../db/repositories/service-figures.js';
import type { ServiceContext } from '../context.js';

/** Assistant turns running and waiting, against the session limit (MAX_CONCURRENT_CONVERSATIONS). */
export interface TurnConcurrency {
  active: number;
  queued: number;
  maxConcurrent: number;
}

export interface ServiceFigures {
  concurrency: TurnConcurrency;
  /** Workflow runs in status running. */
  runningWorkflows: number;
}

export async function databaseReachable(context: ServiceContext): Promise<boolean> {
  try {
    await context.db.knex.raw('select 1');
    return true;
  } catch {
    return false;
  }
}

/**
 * Read from the database, so every API replica reports the same exact figures; undefined when
 * the database cannot be reached: the figures are then unknown, not zero.
 */
export async function turnConcurrency(
  context: ServiceContext,
  maxConcurrent: number,
): Promise<TurnConcurrency | undefined> {
  try {
    const turns = await countTurns(context.db.reader);
    return { active: turns.active, queued: turns.queued, maxConcurrent };
  } catch {
    return undefined;
  }
}

/** Concurrency and running workflows together; undefined when the database cannot be reached. */
export async function serviceFigures(
  context: ServiceContext,
  maxConcurrent: number,
): Promise<ServiceFigures | undefined> {
  try {
    const { active, queued, runningWorkflows } = await countTurnsAndRuns(context.db.reader);
    return { concurrency: { active, queued, maxConcurrent }, runningWorkflows };
  } catch {
    return undefined;
  }
}
