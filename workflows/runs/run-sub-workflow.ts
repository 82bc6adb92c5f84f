import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  isCancellation,
  ParentClosePolicy,
  startChild,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import { TypedSearchAttributes } from '@temporalio/common';
import {
  RUN_WORKFLOW_TYPE,
  runWorkflowId,
  type ChildRunStart,
  type NodeResult,
  type RunWorkflowInput,
} from '../../domain/runs/run-contract.js';
import {
  CODEBASE_ATTRIBUTE,
  RUN_STATUS_ATTRIBUTE,
  WORKFLOW_NAME_ATTRIBUTE,
} from '../../domain/runs/run-search-attributes.js';
import { formatDuration, type SubWorkflowNode } from '../../domain/workflow-definitions/index.js';
import { cancelSignal } from './run-messages.js';

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
  codebaseId: string | null;
}

function childSearchAttributes(workflowName: string, codebaseId: string | null) {
  return new TypedSearchAttributes([
    { key: WORKFLOW_NAME_ATTRIBUTE, value: workflowName },
    ...(codebaseId ? [{ key: CODEBASE_ATTRIBUTE, value: codebaseId }] : []),
    { key: RUN_STATUS_ATTRIBUTE, value: 'pending' },
  ]);
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
  const started = await CancellationScope.nonCancellable(async () => {
    const stored = await runner.store(message);
    if ('error' in stored) return stored;
    const { searchAttributes, maxParallelNodes } = runner.input;
    const handle: ChildWorkflowHandle<(input: RunWorkflowInput) => Promise<void>> = await startChild(
      RUN_WORKFLOW_TYPE,
      {
        workflowId: runWorkflowId(stored.runId),
        taskQueue: workflowInfo().taskQueue,
        args: [{ runId: stored.runId, searchAttributes, maxParallelNodes }],
        ...(searchAttributes && {
          typedSearchAttributes: childSearchAttributes(node.workflow, runner.codebaseId),
        }),
        // This run cancels its child itself (the database first, then a signal), as the API would.
        cancellationType: ChildWorkflowCancellationType.ABANDON,
        // An abandoned (terminated) parent takes its child with it.
        parentClosePolicy: ParentClosePolicy.TERMINATE,
      },
    );
    return { runId: stored.runId, handle };
  });
  if ('error' in started) {
    await runner.record('node_failed', { error: started.error });
    return { status: 'failed', error: started.error };
  }

  let ended = false;
  void started.handle.result().then(
    () => (ended = true),
    () => (ended = true),
  );
  let stopReason: string | undefined;
  try {
    const settled = () => ended || runner.cancelled() !== undefined;
    const inTime =
      node.timeoutMs === undefined
        ? (await condition(settled), true)
        : await condition(settled, node.timeoutMs);
    if (!ended)
      stopReason = inTime
        ? `its parent run was cancelled (${runner.cancelled()?.reason ?? 'cancelled'})`
        : `the sub-workflow node ${node.id} timed out after ${formatDuration(node.timeoutMs!)}`;
  } catch (error) {
    if (!isCancellation(error)) throw error;
    stopReason = `its parent run was cancelled (${runner.cancelled()?.reason ?? 'cancelled'})`;
  }

  return CancellationScope.nonCancellable(async () => {
    const childRunId = started.runId;
    if (stopReason) {
      const actor = runner.cancelled()?.actor;
      await runner.cancelStored(childRunId, actor, stopReason);
      await started.handle.signal(cancelSignal, { actor: actor ?? 'cairn', reason: stopReason });
      await condition(() => ended);
    }
    const outcome = await runner.outcome(childRunId);
    const usage = { tokens: outcome.tokens, costUsd: outcome.costUsd };
    if (outcome.status === 'completed') {
      await runner.record('node_completed', { output: outcome.output, childRunId, ...usage }, usage);
      return { status: 'succeeded', output: outcome.output };
    }
    const error = `sub-workflow ${node.workflow} (run ${childRunId}) ended ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`;
    await runner.record('node_failed', { error, childRunId, ...usage }, usage);
    return { status: 'failed', error };
  });
}
