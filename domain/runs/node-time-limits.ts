import type { WorkflowDefinition } from '../workflow-definitions/types.js';
import { validateWorkflowDefinition } from '../workflow-definitions/validate.js';

/** How long a node of a run may go without an event before something is wrong. */
export interface NodeTimeLimit {
  nodeId: string;
  /** The node's `timeout`, or the default node timeout; null when it may wait for ever (an approval, a sub-workflow without a timeout). */
  timeoutMs: number | null;
  /** The pause between two tries of a node that retries (no event comes during it); 0 otherwise. */
  retryDelayMs: number;
}

/**
 * Each node's effective time limits in a run's stored definition, as the workflow engine applies
 * them (defaults included). A definition that no longer validates has none: no limit is claimed.
 */
export function nodeTimeLimits(definition: unknown): NodeTimeLimit[] {
  const checked = validateWorkflowDefinition(definition);
  return checked.valid ? limitsOfNodes(checked.definition.nodes) : [];
}

/** The limits of a validated definition's nodes. */
export function limitsOfNodes(nodes: WorkflowDefinition['nodes']): NodeTimeLimit[] {
  return nodes.map((node) => ({
    nodeId: node.id,
    timeoutMs: node.timeoutMs ?? null,
    retryDelayMs: ('retry' in node && node.retry?.delayMs) || 0,
  }));
}
