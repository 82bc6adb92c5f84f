import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import {
  CODEBASE_ATTRIBUTE,
  RUN_STATUS_ATTRIBUTE,
  WORKFLOW_NAME_ATTRIBUTE,
} from '../../domain/runs/run-search-attributes.js';
import { RUN_WORKFLOW_TYPE, runWorkflowId, type RunWorkflowInput } from '../../domain/runs/run-contract.js';
import { runQueueFor } from '../../domain/task-queues.js';
import { approveSignal, cancelSignal, rejectSignal, wakeSignal } from '../../workflows/runs/run-messages.js';

export interface RunTemporalAccess {
  client: Client;
  /** The core queue; runs go to its run queue. */
  taskQueue: string;
  /** The namespace has Cairn's search attributes (see searchAttributesRegistered). */
  searchAttributes?: boolean;
}

export interface RunStartOptions {
  resume?: boolean;
  workflowName?: string;
  codebaseId?: string | null;
}

/** The only way the API reaches run executions: start, signal, terminate, by the run's id. */
export function runClient(access: RunTemporalAccess) {
  const handle = (runId: string) => access.client.workflow.getHandle(runWorkflowId(runId));
  /** Signals to a finished or missing execution have nothing to do: the database already says it all. */
  const ignoreMissing = async (send: () => Promise<void>) => {
    try {
      await send();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  };
  return {
    async start(runId: string, options: RunStartOptions = {}): Promise<void> {
      const searchable = access.searchAttributes === true;
      const args: [RunWorkflowInput] = [{ runId, searchAttributes: searchable }];
      const attributes = [
        ...(options.workflowName ? [{ key: WORKFLOW_NAME_ATTRIBUTE, value: options.workflowName }] : []),
        ...(options.codebaseId ? [{ key: CODEBASE_ATTRIBUTE, value: options.codebaseId }] : []),
        { key: RUN_STATUS_ATTRIBUTE, value: 'pending' },
      ];
      await access.client.workflow.start(RUN_WORKFLOW_TYPE, {
        workflowId: runWorkflowId(runId),
        taskQueue: runQueueFor(access.taskQueue),
        args,
        ...(searchable ? { typedSearchAttributes: new TypedSearchAttributes(attributes) } : {}),
        // A resumed run is a new execution under the same id. The failed one has recorded its
        // end already, but may not have closed yet: replacing it loses nothing.
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        ...(options.resume ? { workflowIdConflictPolicy: 'TERMINATE_EXISTING' as const } : {}),
      });
    },
    cancel: (runId: string, actor: string) =>
      ignoreMissing(() => handle(runId).signal(cancelSignal, { actor })),
    wake: (runId: string, actor: string) => ignoreMissing(() => handle(runId).signal(wakeSignal, { actor })),
    approve: (runId: string, actor: string, comment?: string) =>
      ignoreMissing(() => handle(runId).signal(approveSignal, { actor, comment })),
    reject: (runId: string, actor: string, reason: string | undefined, rework: boolean) =>
      ignoreMissing(() => handle(runId).signal(rejectSignal, { actor, reason, rework })),
    /** Whether the run's execution is running, closed (any end), or missing from Temporal. */
    async executionState(runId: string): Promise<'running' | 'closed' | 'missing'> {
      try {
        const description = await handle(runId).describe();
        return description.status.name === 'RUNNING' ? 'running' : 'closed';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return 'missing';
        throw error;
      }
    },
    terminate: (runId: string, reason: string) =>
      ignoreMissing(() =>
        handle(runId)
          .terminate(reason)
          .then(() => undefined),
      ),
  };
}

export type RunClient = ReturnType<typeof runClient>;
