import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/connection.js';
import { appendEvent, SYSTEM_STREAM } from '../../db/repositories/events.js';
import { listRuns, listRunsChangedSince, type WorkflowRun } from '../../db/repositories/workflow-runs.js';
import { allowsRunOperation, statesAllowing, statusChange } from '../../domain/runs/run-state-machine.js';
import { transitionWithEvent } from './run-state.js';
import { runClient } from './run-client.js';

export interface ReconcileOptions {
  client: Client;
  taskQueue: string;
  db: Database;
  logger: Logger;
  /** A run whose row changed less than this ago is left alone: it may be starting or resuming. */
  graceMs?: number;
  /** The namespace has Cairn's search attributes: runs started here carry them. */
  searchAttributes?: boolean;
}

export interface Repair {
  runId: string;
  was: string;
  action: 'started' | 'failed' | 'stopped';
  reason: string;
}

/** How far back stopped runs are checked for an execution that did not stop with them. */
const STOPPED_LOOKBACK_MS = 24 * 60 * 60_000;

/**
 * Compares unfinished runs in the database with their Temporal executions and repairs what
 * differs: a pending run whose execution never started is started; a running or paused run
 * whose execution is gone is marked failed (a resume picks it up from its completed nodes).
 * No run stays `running` without a live execution. Each repair is recorded as an event.
 */
export async function reconcileRuns(options: ReconcileOptions): Promise<Repair[]> {
  const { knex } = options.db;
  const runs = runClient(options);
  const cutoff = Date.now() - (options.graceMs ?? 30_000);
  // Runs under way; the pending ones among them are those a start may repair.
  const unfinished: WorkflowRun[] = await listRuns(knex, {
    statuses: statesAllowing('reconcile_fail'),
    limit: 10_000,
  });
  const repairs: Repair[] = [];
  for (const run of unfinished) {
    // A run changed a moment ago may be between its state change and its (re)start: a resume.
    if (Date.parse(run.updatedAt) > cutoff) continue;
    const state = await runs.executionState(run.id);
    if (state === 'running') continue;
    const ref = { runId: run.id, conversationId: run.conversationId };
    if (state === 'missing' && allowsRunOperation(run.status, 'reconcile_start')) {
      try {
        await runs.start(run.id, { workflowName: run.workflowName, codebaseId: run.codebaseId });
      } catch (error) {
        // Another reconciler (the worker's, a cleanup pass) started it a moment ago.
        if (error instanceof WorkflowExecutionAlreadyStartedError) continue;
        throw error;
      }
      repairs.push({
        runId: run.id,
        was: run.status,
        action: 'started',
        reason: 'its execution had never started',
      });
      continue;
    }
    const reason =
      state === 'missing'
        ? 'its Temporal execution no longer exists (a Temporal server without its data?)'
        : 'its Temporal execution ended without recording an outcome';
    // Only from the status seen here: a run that moved on meanwhile is left to its new owner.
    const { to } = statusChange('reconcile_fail');
    const repaired = await transitionWithEvent(
      knex,
      ref,
      { from: [run.status], to, error: reason },
      { type: 'run_reconciled', payload: { was: run.status, now: to, reason } },
    );
    if (repaired) repairs.push({ runId: run.id, was: run.status, action: 'failed', reason });
  }
  repairs.push(...(await stopLeftoverExecutions(options, cutoff)));
  if (repairs.length > 0) {
    options.logger.warn({ event: 'run.reconciled', repairs }, `reconciled ${repairs.length} run(s)`);
    await appendEvent(knex, { streamKey: SYSTEM_STREAM, type: 'runs_reconciled', payload: { repairs } });
  }
  return repairs;
}

/**
 * A run cancelled or abandoned in the database whose execution still runs (its signal or
 * termination did not get through): the execution is stopped now.
 */
async function stopLeftoverExecutions(options: ReconcileOptions, cutoff: number): Promise<Repair[]> {
  const runs = runClient(options);
  const since = new Date(Date.now() - STOPPED_LOOKBACK_MS).toISOString();
  const repairs: Repair[] = [];
  for (const run of await listRunsChangedSince(options.db.knex, statesAllowing('reconcile_stop'), since)) {
    if (Date.parse(run.updatedAt) > cutoff) continue;
    if ((await runs.executionState(run.id)) !== 'running') continue;
    if (run.status === 'cancelled') await runs.cancel(run.id, 'reconciler');
    else await runs.terminate(run.id, 'abandoned (stopped by the reconciler)');
    repairs.push({
      runId: run.id,
      was: run.status,
      action: 'stopped',
      reason: 'its execution was still running',
    });
  }
  return repairs;
}
