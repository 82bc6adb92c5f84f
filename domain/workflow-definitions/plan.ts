/**
 * Planning a run of a validated definition: the order nodes can run in, what is upstream of a
 * node, and which nodes to start or skip given where every node is (trigger rules and `when`).
 */
import { evaluateCondition } from './conditions.js';
import { dependencyOrder, reachableFrom, type DependencyGraph } from './graph.js';
import type { NodeState, WorkflowDefinition, WorkflowNode } from './types.js';

function graphOf(definition: WorkflowDefinition): DependencyGraph {
  return new Map(definition.nodes.map((node) => [node.id, node.dependsOn]));
}

/** Node ids, each after its dependencies; independent nodes keep the order written. */
export function topologicalOrder(definition: WorkflowDefinition): string[] {
  const { order, blocked } = dependencyOrder(graphOf(definition));
  if (blocked.length > 0) throw new Error(`the workflow has a cycle through ${blocked.join(', ')}`);
  return order;
}

/** The ids reachable backwards from `id` through depends_on, in topological order. */
export function upstreamOf(definition: WorkflowDefinition, id: string): string[] {
  const upstream = reachableFrom(graphOf(definition), id);
  return topologicalOrder(definition).filter((other) => upstream.has(other));
}

export interface SkipDecision {
  id: string;
  /** Why, in plain words: `dependency "plan" failed`, `its condition is false`, ... */
  reason: string;
}

export interface ReadyNodes {
  /** Nodes to start now, in topological order. */
  start: string[];
  /** Nodes that will never run, in topological order. */
  skip: SkipDecision[];
}

const ENDED: ReadonlySet<NodeState> = new Set(['succeeded', 'failed', 'skipped']);

/** Whether the node should run, be skipped, or wait, from its dependencies' states alone. */
function triggerDecision(
  node: WorkflowNode,
  states: Map<string, NodeState>,
): { decision: 'run' | 'wait' } | { decision: 'skip'; reason: string } {
  const deps = node.dependsOn.map((id) => ({ id, state: states.get(id) ?? 'pending' }));
  const notSucceeded = deps.find(({ state }) => state === 'failed' || state === 'skipped');
  if (node.triggerRule === 'all_success' && notSucceeded) {
    return { decision: 'skip', reason: `dependency "${notSucceeded.id}" ${notSucceeded.state}` };
  }
  if (deps.some(({ state }) => !ENDED.has(state))) return { decision: 'wait' };
  if (node.triggerRule === 'one_success' && deps.length > 0 && !deps.some((d) => d.state === 'succeeded')) {
    return { decision: 'skip', reason: 'no dependency succeeded' };
  }
  return { decision: 'run' };
}

/**
 * What to do next: pending nodes whose dependencies have all ended and whose trigger rule holds
 * are started; pending nodes whose rule can no longer hold are skipped, and so, in the same
 * call, are the nodes that skip causes to be skipped. When `outputs` is given, a node's `when`
 * is evaluated as it becomes ready: false skips it. Without `outputs` the caller evaluates
 * `when` itself before starting a node.
 */
export function readyNodes(
  definition: WorkflowDefinition,
  states: Readonly<Record<string, NodeState>>,
  outputs?: Readonly<Record<string, unknown>>,
): ReadyNodes {
  const working = new Map<string, NodeState>();
  for (const node of definition.nodes) {
    const state = Object.prototype.hasOwnProperty.call(states, node.id) ? states[node.id] : undefined;
    working.set(node.id, state ?? 'pending');
  }
  const byId = new Map(definition.nodes.map((node) => [node.id, node]));
  const result: ReadyNodes = { start: [], skip: [] };
  for (const id of topologicalOrder(definition)) {
    const node = byId.get(id)!;
    if (working.get(id) !== 'pending') continue;
    const trigger = triggerDecision(node, working);
    if (trigger.decision === 'wait') continue;
    if (trigger.decision === 'skip') {
      result.skip.push({ id, reason: trigger.reason });
      working.set(id, 'skipped');
    } else if (outputs && node.when && !evaluateCondition(node.when, outputs)) {
      result.skip.push({ id, reason: `its condition is false: ${node.whenSource ?? ''}`.trimEnd() });
      working.set(id, 'skipped');
    } else {
      result.start.push(id);
      working.set(id, 'running');
    }
  }
  return result;
}
