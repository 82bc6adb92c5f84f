import type {
  AssistantNodeInput,
  BashNodeInput,
  NodeOutcome,
  ScriptNodeInput,
} from '../../domain/runs/run-contract.js';
import type { ServiceContext } from '../../services/context.js';
import { runAssistantNode } from './assistant-node.js';
import { runBashNode } from './bash-node.js';
import { runScriptNode } from './script-node.js';

/**
 * The activities that run one node of a workflow run. Assistant nodes belong on the assistant
 * task queue (the conversation limit covers them); bash and script nodes may run on either.
 */
export function createNodeActivities(deps: ServiceContext) {
  return {
    runBashNode: (input: BashNodeInput): Promise<NodeOutcome> => runBashNode(deps, input),
    runScriptNode: (input: ScriptNodeInput): Promise<NodeOutcome> => runScriptNode(deps, input),
    runAssistantNode: (input: AssistantNodeInput): Promise<NodeOutcome> => runAssistantNode(deps, input),
  };
}

export type NodeActivities = ReturnType<typeof createNodeActivities>;
