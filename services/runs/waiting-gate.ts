import type { Knex } from 'knex';
import { listRunEvents } from '../../db/repositories/run-events.js';
import type { WorkflowRun } from '../../db/repositories/workflow-runs.js';
import { validateWorkflowDefinition } from '../../domain/workflow-definitions/index.js';

export interface WaitingGate {
  nodeId: string;
  /** Whether a rejection now leads to rework (the gate asks again) rather than ending the run. */
  reworkOnReject: boolean;
}

/**
 * The approval gate a paused run waits at (the oldest request not yet answered), and whether a
 * rejection would be reworked: the gate declares on_reject and has rejections left.
 */
export async function waitingGate(knex: Knex, run: WorkflowRun): Promise<WaitingGate | undefined> {
  const waiting: string[] = [];
  const rejections = new Map<string, number>();
  for (const event of await listRunEvents(knex, run.id)) {
    // A resumed run starts a new execution: requests the old one left unanswered are gone.
    if (event.type === 'run_resumed') waiting.length = 0;
    if (event.type === 'approval_requested' && event.nodeId) waiting.push(event.nodeId);
    if (event.type === 'approval_received') {
      const answered = waiting.shift();
      if (answered && event.payload.decision === 'reject')
        rejections.set(answered, (rejections.get(answered) ?? 0) + 1);
    }
  }
  const nodeId = waiting[0];
  if (!nodeId) return undefined;
  const checked = validateWorkflowDefinition(run.definition);
  const node = checked.valid
    ? checked.definition.nodes.find((candidate) => candidate.id === nodeId)
    : undefined;
  const rework = node?.kind === 'approval' ? node.approval.onReject : undefined;
  return {
    nodeId,
    reworkOnReject: rework !== undefined && (rejections.get(nodeId) ?? 0) < rework.maxAttempts,
  };
}
