import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  ParentClosePolicy,
  startChild,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import { TypedSearchAttributes } from '@temporalio/common';
import { RUN_WORKFLOW_TYPE, runWorkflowId, type RunWorkflowInput } from '../../domain/runs/run-contract.js';
import {
  CODEBASE_ATTRIBUTE,
  RUN_STATUS_ATTRIBUTE,
  WORKFLOW_NAME_ATTRIBUTE,
} from '../../domain/runs/run-search-attributes.js';
import { cancelSignal } from './run-messages.js';

/** A stored run executing as a Temporal child workflow of this one. */
export interface ChildRun {
  runId: string;
  handle: ChildWorkflowHandle<(input: RunWorkflowInput) => Promise<void>>;
  /** Whether its execution has closed (whatever its end). */
  ended(): boolean;
}

/**
 * Starts a stored run as a child workflow on `taskQueue`. Its parent cancels it itself (the
 * database first, then a signal, as the API does), never through Temporal's cancellation; a
 * parent that is terminated (abandoned) takes the child with it.
 */
export async function startRunAsChild(
  runId: string,
  options: {
    taskQueue: string;
    input: Omit<RunWorkflowInput, 'runId'>;
    workflowName: string;
    codebaseId: string | null;
  },
): Promise<ChildRun> {
  const { input, workflowName, codebaseId } = options;
  const handle: ChildRun['handle'] = await startChild(RUN_WORKFLOW_TYPE, {
    workflowId: runWorkflowId(runId),
    taskQueue: options.taskQueue,
    args: [{ ...input, runId }],
    ...(input.searchAttributes && {
      typedSearchAttributes: new TypedSearchAttributes([
        { key: WORKFLOW_NAME_ATTRIBUTE, value: workflowName },
        ...(codebaseId ? [{ key: CODEBASE_ATTRIBUTE, value: codebaseId }] : []),
        { key: RUN_STATUS_ATTRIBUTE, value: 'pending' },
      ]),
    }),
    cancellationType: ChildWorkflowCancellationType.ABANDON,
    parentClosePolicy: ParentClosePolicy.TERMINATE,
  });
  let closed = false;
  void handle.result().then(
    () => (closed = true),
    () => (closed = true),
  );
  return { runId, handle, ended: () => closed };
}

/**
 * Cancels a child run and waits until it has stopped: `markCancelled` records it (the run's
 * state and event), then its execution is told. Nothing here can be cancelled halfway.
 */
export function stopChildRun(
  child: ChildRun,
  markCancelled: () => Promise<void>,
  signal: { actor: string; reason: string },
): Promise<void> {
  return CancellationScope.nonCancellable(async () => {
    if (child.ended()) return;
    await markCancelled();
    // A child that ended meanwhile cannot take the signal: its end is what was waited for anyway.
    await child.handle.signal(cancelSignal, signal).catch(() => undefined);
    await condition(child.ended);
  });
}
