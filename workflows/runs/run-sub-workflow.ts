import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { ChildRunStart, NodeResult, RunWorkflowInput } from '../../domain/runs/run-contract.js';
import { formatDuration, type SubWorkflowNode } from '../../domain/workflow-definitions/index.js';
import { startRunAsChild, stopChildRun } from './child-run.js';

/** What a sub-workflow node needs from the run it is part of (workflow code: deterministic, no I/O). */
export interface SubWorkflowRunner {
  /** Stores the child run (linked to this run and node), or says why it cannot. */
  store(message: string): Promise<ChildRunStart>;
  outcome(childRunId: string): Promise<{
    status: string;
    error: string | null;
    output: unknown;
    tokens: number;
    costUsd: number;
  }>;
  /** Marks the child cancelled with the reason (its execution is signalled here). */
  cancelStored(childRunId: string, actor: string | undefined, reason: string): Promise<void>;
  record(
    type: 'node_completed' | 'node_failed',
    payload: Record<string, unknown>,
    usage?: { tokens: number; costUsd: number },
  ): Promise<void>;
  /** Who cancelled this run and why, once it is. */
  cancelled(): { actor?: string; reason: string } | undefined;
  /** This run's own input, which the child's copies its settings from. */
  input: RunWorkflowInput;
  /** This run's queue: the child runs there too. */
  taskQueue: string;
  codebaseId: string | null;
}

/**
 * Runs a sub-workflow node: stores the child run, starts it as a Temporal child workflow, and
 * waits for its end. A cancel of this run (or the node's timeout) cancels the child, and the node
 * waits until it has stopped. The child's status decides the node's; its output is the node's.
 */
export async function runSubWorkflow(
  node: SubWorkflowNode,
  message: string,
  runner: SubWorkflowRunner,
): Promise<NodeResult> {
  // Stored and started as one step that a cancel cannot split: no child is left stored, never started.
  const child = await CancellationScope.nonCancellable(async () => {
    const stored = await runner.store(message);
    if ('error' in stored) return stored;
    const { searchAttributes, maxParallelNodes } = runner.input;
    return startRunAsChild(stored.runId, {
      taskQueue: runner.taskQueue,
      input: { searchAttributes, maxParallelNodes },
      workflowName: node.workflow,
      codebaseId: runner.codebaseId,
    });
  });
  if ('error' in child) {
    await runner.record('node_failed', { error: child.error });
    return { status: 'failed', error: child.error };
  }

  const parentCancelled = () => `its parent run was cancelled (${runner.cancelled()?.reason ?? 'cancelled'})`;
  let stopReason: string | undefined;
  try {
    const settled = () => child.ended() || runner.cancelled() !== undefined;
    const inTime =
      node.timeoutMs === undefined
        ? (await condition(settled), true)
        : await condition(settled, node.timeoutMs);
    if (!child.ended())
      stopReason = inTime
        ? parentCancelled()
        : `the sub-workflow node ${node.id} timed out after ${formatDuration(node.timeoutMs!)}`;
  } catch (error) {
    if (!isCancellation(error)) throw error;
    if (!child.ended()) stopReason = parentCancelled();
  }

  return CancellationScope.nonCancellable(async () => {
    if (stopReason) {
      const actor = runner.cancelled()?.actor;
      const reason = stopReason;
      await stopChildRun(child, () => runner.cancelStored(child.runId, actor, reason), {
        actor: actor ?? 'cairn',
        reason,
      });
    }
    const outcome = await runner.outcome(child.runId);
    const usage = { tokens: outcome.tokens, costUsd: outcome.costUsd };
    const childRunId = child.runId;
    if (outcome.status === 'completed') {
      await runner.record('node_completed', { output: outcome.output, childRunId, ...usage }, usage);
      return { status: 'succeeded', output: outcome.output };
    }
    const error = `sub-workflow ${node.workflow} (run ${childRunId}) ended ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`;
    await runner.record('node_failed', { error, childRunId, ...usage }, usage);
    return { status: 'failed', error };
  });
}
