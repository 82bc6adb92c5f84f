// What the run page reads from a run's stored definition, validated once: each node's time limits
// and the graph the run follows. The graph comes with the run itself, so the page draws it without
// asking for the workflow's file (which may have changed since the run started).
import { validateWorkflowDefinition } from '../workflow-definitions/validate.js';
import { limitsOfNodes, type NodeTimeLimit } from './node-time-limits.js';

export interface RunGraphNode {
  nodeId: string;
  /** The nodes it waits for, in the order written. */
  dependsOn: string[];
}

export interface RunDefinitionFacts {
  nodeLimits: NodeTimeLimit[];
  /** Every node of the definition, in its order. */
  nodes: RunGraphNode[];
}

/** A definition that no longer validates has neither: no limit is claimed, no graph drawn from it. */
export function runDefinitionFacts(definition: unknown): RunDefinitionFacts {
  const checked = validateWorkflowDefinition(definition);
  if (!checked.valid) return { nodeLimits: [], nodes: [] };
  const { nodes } = checked.definition;
  return {
    nodeLimits: limitsOfNodes(nodes),
    nodes: nodes.map((node) => ({ nodeId: node.id, dependsOn: [...node.dependsOn] })),
  };
}
