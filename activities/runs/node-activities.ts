import type { AssistantNodeInput, BashNodeInput, NodeOutcome } from '../../domain/runs/run-contract.js';
import type { ServiceContext } from '../../services/context.js';
import { runAssistantNode } from './assistant-node.js';
import { runBashNode } from './bash-node.js';

/**
 * The activities that run one node of a workflow run. Assistant nodes belong on the assistant
 * task queue (the conversation limit covers them); bash nodes may run on either.
 */
export function createNodeActivities(deps: ServiceContext) {
  return {
    runBashNode: (input: BashNodeInput): Promise<NodeOutcome> => runBashNode(deps, input),
    runAssistantNode: (input: AssistantNodeInput): Promise<NodeOutcome> => runAssistantNode(deps, input),
  };
}

export type NodeActivities = ReturnType<typeof createNodeActivities>;
