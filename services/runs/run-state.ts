import type { Knex } from 'knex';
import { nowIso } from '../../db/rows.js';
import { findRun, transitionRun } from '../../db/repositories/workflow-runs.js';
import { latestNodeEvent } from '../../db/repositories/run-events.js';
import { statusChange } from '../../domain/runs/run-state-machine.js';
import type { RunStatus } from '../../domain/runs/run-status.js';
import type { ServiceContext } from '../context.js';
import { recordRunEvent } from './run-journal.js';

export interface RunRef {
  runId: string;
  conversationId: string | null;
}

/**
 * A run's status change and its event, in one transaction: the compare-and-swap decides, and
 * only the winner records. Returns whether the change happened.
 */
export async function transitionWithEvent(
  knex: Knex,
  ref: RunRef,
  change: { from: readonly RunStatus[]; to: RunStatus; error?: string | null },
  event: { type: string; actor?: string | null; nodeId?: string | null; payload?: Record<string, unknown> },
): Promise<boolean> {
  return knex.transaction(async (trx) => {
    if (!(await transitionRun(trx, ref.runId, change.from, change.to, { error: change.error }))) return false;
    await recordRunEvent(trx, { ...ref, ...event });
    return true;
  });
}

/** The run's execution begins (pending → running); answers the status it found or set. */
export async function beginRun(deps: ServiceContext, ref: RunRef): Promise<RunStatus | undefined> {
  await transitionWithEvent(deps.db.knex, ref, statusChange('begin'), { type: 'run_started' });
  return (await findRun(deps.db.knex, ref.runId))?.status;
}

/** An approval gate is waiting: the run shows as paused (it may be already, for another gate). */
export async function requestApproval(
  deps: ServiceContext,
  input: RunRef & { nodeId: string; message: string },
): Promise<void> {
  const { knex } = deps.db;
  const event = { type: 'approval_requested', nodeId: input.nodeId, payload: { message: input.message } };
  if (await transitionWithEvent(knex, input, statusChange('await_approval'), event)) return;
  await recordRunEvent(knex, { ...input, ...event });
}

/** After an approval, a run with other gates still waiting goes back to paused. */
export async function pauseAgain(deps: ServiceContext, ref: RunRef): Promise<void> {
  const { from, to } = statusChange('await_approval');
  await transitionRun(deps.db.knex, ref.runId, from, to);
}

export interface NodeRecord extends RunRef {
  nodeId: string;
  type:
    | 'node_started'
    | 'node_completed'
    | 'node_failed'
    | 'node_skipped'
    | 'node_retrying'
    | 'node_reworking'
    | 'node_iteration'
    | 'node_waiting'
    | 'node_resumed'
    | 'node_item_started'
    | 'node_item_completed'
    | 'node_item_failed';
  payload?: Record<string, unknown>;
  tokens?: number;
  costUsd?: number;
}

/**
 * Whether this node's wait is already recorded: by the run's number of the wait, or, for runs
 * started before waits were numbered, by being the node's latest event with the same `until`.
 */
async function isRecordedWait(source: Knex, record: NodeRecord): Promise<boolean> {
  const latest = await latestNodeEvent(source, record.runId, record.nodeId);
  if (latest?.type !== 'node_waiting') return false;
  const wait = record.payload?.wait;
  if (wait !== undefined) return latest.payload.wait === wait;
  return latest.payload.until === record.payload?.until;
}

/** A node's progress: its event, the run's current node, and the run's token and cost totals. */
export async function recordNode(deps: ServiceContext, record: NodeRecord): Promise<void> {
  await deps.db.knex.transaction(async (trx) => {
    // Local activities run at least once: a worker that died after this write but before its
    // result was recorded has the new worker write it again, with a new `until` when the workflow
    // task itself is run again. The run numbers its waits (`wait`, the same on every replay), so a
    // wait already recorded under its number is that repeat.
    if (record.type === 'node_waiting' && (await isRecordedWait(trx, record))) return;
    const patch: Record<string, unknown> = { updated_at: nowIso() };
    if (record.type === 'node_started') patch.current_node = record.nodeId;
    // A usage-limit wait shows on the run itself, until the node goes on.
    if (record.type === 'node_waiting') patch.waiting_until = record.payload?.until;
    if (record.type === 'node_resumed') patch.waiting_until = null;
    if (record.tokens) patch.total_tokens = trx.raw('total_tokens + ?', [record.tokens]);
    if (record.costUsd) patch.total_cost_usd = trx.raw('total_cost_usd + ?', [record.costUsd]);
    await trx('workflow_runs').where({ id: record.runId }).update(patch);
    await recordRunEvent(trx, { ...record, payload: record.payload });
  });
}

export type RunEnd = 'completed' | 'failed' | 'cancelled';

/** Ends a run that is still running or paused; a run cancelled or abandoned meanwhile keeps that. */
export async function finishRun(
  deps: ServiceContext,
  input: RunRef & { end: RunEnd; error?: string; actor?: string; payload?: Record<string, unknown> },
): Promise<boolean> {
  return transitionWithEvent(
    deps.db.knex,
    input,
    { ...statusChange(`finish_${input.end}`), error: input.error ?? null },
    {
      type: `run_${input.end}`,
      actor: input.actor,
      payload: { ...input.payload, ...(input.error ? { error: input.error } : {}) },
    },
  );
}

/** A run that could not be prepared fails with the reason, shown on its conversation's stream too. */
export async function failUnpreparedRun(
  deps: ServiceContext,
  input: { runId: string; error: string },
): Promise<boolean> {
  const run = await findRun(deps.db.knex, input.runId);
  const conversationId = run?.conversationId ?? null;
  return finishRun(deps, { runId: input.runId, conversationId, end: 'failed', error: input.error });
}
